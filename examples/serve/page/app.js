// File: examples/serve/page/app.js
//
// The page of `dcplan serve`: a preset picker, "scale a cluster" (one cluster size on a log slider,
// POST /v1/scale) and "what fits" (power cap, budget, PUE, electricity price, POST /v1/plan), the
// "scale a cluster" chart (one POST /v1/scale over log-spaced sizes), "copy as request" and
// "download plan". Every number is formatted as the CLI formats it (units/format.cc, mirrored in
// the `fmt` functions below). Talks only to the server that served it; fetches nothing else.
'use strict';

// ---------------------------------------------------------------------------------------------
// SI formatting, mirroring units/format.cc exactly
// ---------------------------------------------------------------------------------------------

const POWER_STEPS = [[1, 'W'], [1e3, 'kW'], [1e6, 'MW'], [1e9, 'GW'], [1e12, 'TW'], [1e15, 'PW'], [1e18, 'EW']];
const MONEY_STEPS = [[1, ''], [1e3, 'k'], [1e6, 'M'], [1e9, 'B'], [1e12, 'T']];
const RATE_STEPS = [[1, 'FLOP/s'], [1e3, 'kFLOP/s'], [1e6, 'MFLOP/s'], [1e9, 'GFLOP/s'],
  [1e12, 'TFLOP/s'], [1e15, 'PFLOP/s'], [1e18, 'EFLOP/s']];

// printf("%.*f", decimals, x) for finite x >= 0: round half to even on the exact binary value
// (glibc), where toFixed rounds an exact tie up.
function printfFixed(x, decimals) {
  if (x >= 1e21) {  // toFixed goes exponential here; such a double is an integer
    const whole = BigInt(x).toString();
    return decimals > 0 ? whole + '.' + '0'.repeat(decimals) : whole;
  }
  const rounded = x.toFixed(decimals);
  const exact = x.toFixed(100);  // exact for every double in range that is not tiny
  const point = exact.indexOf('.');
  const rest = exact.slice(point + 1 + decimals);
  if (/^50*$/.test(rest)) {  // an exact tie: keep the truncated digits when their last is even
    const truncated = decimals > 0 ? exact.slice(0, point + 1 + decimals) : exact.slice(0, point);
    const last = truncated.charCodeAt(truncated.length - 1) - 48;
    if (last % 2 === 0) return truncated;
  }
  return rounded;
}

function clampDecimals(d) { return Math.min(20, Math.max(0, d)); }
function nonFinite(v) { return Number.isNaN(v) ? 'nan' : (v < 0 ? '-inf' : 'inf'); }
function isPrintedZero(digits) { return /^[0.]*$/.test(digits); }

// The largest step the magnitude reaches, moving up one when rounding carried the mantissa there.
function printScaled(magnitude, decimals, steps, base) {
  let step = base || 0;
  if (magnitude !== 0) {
    step = 0;
    for (let i = 0; i < steps.length; ++i) if (magnitude >= steps[i][0]) step = i;
  }
  let digits = printfFixed(magnitude / steps[step][0], decimals);
  while (step + 1 < steps.length) {
    const printed = Number(digits);
    const ratio = steps[step + 1][0] / steps[step][0];
    if (!(printed >= ratio * (1 - 1e-12))) break;
    ++step;
    digits = printfFixed(magnitude / steps[step][0], decimals);
  }
  return { digits, step };
}

function formatWithSteps(v, decimals, steps) {
  if (!Number.isFinite(v)) return nonFinite(v) + ' ' + steps[0][1];
  const p = printScaled(Math.abs(v), clampDecimals(decimals), steps);
  const negative = v < 0 && !isPrintedZero(p.digits);
  return (negative ? '-' : '') + p.digits + ' ' + steps[p.step][1];
}

function formatFixed(v, decimals) {
  const digits = printfFixed(Math.abs(v), clampDecimals(decimals));
  return (v < 0 && !isPrintedZero(digits) ? '-' : '') + digits;
}

const fmt = {
  // "45.9 MW"
  power: (watts, decimals = 1) => formatWithSteps(Number(watts), decimals, POWER_STEPS),
  // "10.49 EFLOP/s"
  rate: (flops, decimals = 2) => formatWithSteps(Number(flops), decimals, RATE_STEPS),
  // "$1.49B"
  money: (usd, decimals = 2) => {
    usd = Number(usd);
    if (!Number.isFinite(usd)) return nonFinite(usd) + ' USD';
    const p = printScaled(Math.abs(usd), clampDecimals(decimals), MONEY_STEPS);
    const negative = usd < 0 && !isPrintedZero(p.digits);
    return (negative ? '-' : '') + '$' + p.digits + MONEY_STEPS[p.step][1];
  },
  // "32.0%"
  percent: (fraction, decimals = 1) => {
    const percent = Number(fraction) * 100;
    if (!Number.isFinite(percent)) return nonFinite(percent) + '%';
    return formatFixed(percent, decimals) + '%';
  },
  // "0.080 USD/kWh"
  usdPerKwh: (p, decimals = 3) => formatFixed(Number(p), decimals) + ' USD/kWh',
  // "32,768" from a uint64 (a JSON string) or a number
  count: (n) => {
    let digits = String(n === undefined || n === null ? 0 : n);
    if (!/^\d+$/.test(digits)) digits = String(Math.round(Number(digits)));
    let out = '';
    for (let i = 0; i < digits.length; ++i) {
      if (i > 0 && (digits.length - i) % 3 === 0) out += ',';
      out += digits[i];
    }
    return out;
  },
};

// The CLI's words for the binding cap (examples/cli/report.cc BindingName).
const BINDING_NAMES = {
  BINDING_CONSTRAINT_NONE: 'none',
  BINDING_CONSTRAINT_FACILITY_POWER: 'facility power cap',
  BINDING_CONSTRAINT_IT_POWER: 'IT power cap',
  BINDING_CONSTRAINT_SUBSTATION: 'substation capacity',
  BINDING_CONSTRAINT_MAX_GPUS: 'GPU cap',
  BINDING_CONSTRAINT_BUILDINGS: 'building count',
  BINDING_CONSTRAINT_BUDGET: 'budget',
  BINDING_CONSTRAINT_SIZE_LIMIT: 'size limit',
  BINDING_CONSTRAINT_DIMINISHING_RETURNS: 'diminishing returns',
  BINDING_CONSTRAINT_FABRIC: 'scale-out fabric',
};
function bindingName(b) { return BINDING_NAMES[b] || 'unspecified'; }

// ---------------------------------------------------------------------------------------------
// State and the server
// ---------------------------------------------------------------------------------------------

const $ = (id) => document.getElementById(id);

const MAX_SLIDER_GPUS = 1e6;
const POWER_RANGE = [1e6, 5e9];     // W
const BUDGET_RANGE = [1e7, 1e11];   // USD

const state = {
  mode: 'scale',
  preset: null,        // the preset's PlanRequest as the server gave it
  presetName: '',
  presets: [],
  gpus: '32768',       // the cluster size as typed or slid (a string, sent as a uint64)
  powerMw: 50,
  budgetOn: false,
  budgetM: 1000,
  pue: 1.3,
  price: 0.08,
  plan: null,          // the Plan on display (what fits) or null
  row: null,           // the ScaleRow on display (scale a cluster) or null
  chartRows: [],       // the chart's ScaleRows
  chartMax: MAX_SLIDER_GPUS,
  markerGpus: 0,
};

// Responses older than the newest request of their kind are dropped, so what is shown always
// matches the latest input.
const latest = { solve: 0, chart: 0 };

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw { error: 'cannot reach dcplan serve: ' + e.message };
  }
  let json = null;
  try {
    json = await response.json();
  } catch (e) {
    throw { error: 'HTTP ' + response.status + ' from ' + path + ' (not JSON)' };
  }
  if (!response.ok) throw json && json.error ? json : { error: 'HTTP ' + response.status };
  return json;
}

function clone(x) { return JSON.parse(JSON.stringify(x)); }

// The request the page solves: the preset with the page's PUE and electricity price, and in
// "what fits" the caps, in "scale a cluster" a GPU cap at the slider's size (what `dcplan fit
// --request` needs to reproduce it).
// Records `path` as set on the page (the ledger then says so), as the CLI's --set does.
function markUser(r, path) {
  r.sources = (r.sources || []).filter((s) => s.path !== path);
  r.sources.push({ path: path, origin: 'ORIGIN_USER', source: 'the page' });
}

function currentRequest() {
  const r = clone(state.preset || {});
  r.site = r.site || {};
  if (Number(r.site.pue) !== state.pue) markUser(r, 'site.pue');
  r.site.pue = state.pue;
  r.costs = r.costs || {};
  if (Number(r.costs.electricity_usd_per_kwh || 0) !== state.price) {
    markUser(r, 'costs.electricity_usd_per_kwh');
  }
  r.costs.electricity_usd_per_kwh = state.price;
  const c = Object.assign({}, r.constraints || {});
  if (state.mode === 'fits') {
    c.power_cap_watts = state.powerMw * 1e6;
    c.budget_usd = state.budgetOn ? state.budgetM * 1e6 : 0;
    markUser(r, 'constraints.power_cap_watts');
    if (state.budgetOn) markUser(r, 'constraints.budget_usd');
    delete c.max_gpus;
  } else {
    c.power_cap_watts = 0;
    c.budget_usd = 0;
    c.max_gpus = state.gpus;
  }
  r.constraints = c;
  return r;
}

// The request with the caps of a scale request (none are applied there).
function scaleRequest() { return currentRequest(); }

// The page's control for a request field, and the name a person knows it by: an error about the
// field (its path travels in the answer's `field`) highlights the control and speaks its name.
const FIELD_CONTROLS = {
  'site.pue': ['pue-input', 'PUE'],
  'costs.electricity_usd_per_kwh': ['price-input', 'electricity price'],
  'constraints.power_cap_watts': ['power-input', 'power cap'],
  'constraints.budget_usd': ['budget-input', 'budget'],
  'constraints.max_gpus': ['gpus-input', 'GPUs'],
};

function showError(e) {
  const el = $('error');
  for (const [id] of Object.values(FIELD_CONTROLS)) $(id).removeAttribute('aria-invalid');
  if (!e) {
    el.textContent = '';
    el.classList.remove('shown');
    document.body.classList.remove('has-error');
    return;
  }
  const field = (e.field || '').replace(/^request\./, '');
  const control = FIELD_CONTROLS[field];
  let message = e.error;
  if (control) {
    $(control[0]).setAttribute('aria-invalid', 'true');
    message = message.split(field).join(control[1]) + ' (' + field + ')';
  } else if (e.field && message.indexOf(e.field) < 0) {
    message += ' (' + e.field + ')';
  }
  el.textContent = message;
  el.classList.add('shown');
  document.body.classList.add('has-error');
}

// Validation the page can do without the server: a field that is not a number at all.
function localProblem() {
  if (!Number.isFinite(state.pue)) return { error: 'enter a PUE (a number >= 1.0)' };
  if (!Number.isFinite(state.price)) return { error: 'enter an electricity price in USD/kWh' };
  if (state.mode === 'scale' && !/^\s*\d+\s*$/.test(state.gpus)) {
    return { error: 'enter a whole number of GPUs (1 to 1,000,000,000,000)' };
  }
  if (state.mode === 'fits' && !Number.isFinite(state.powerMw)) {
    return { error: 'enter a power cap in MW' };
  }
  if (state.mode === 'fits' && state.budgetOn && !Number.isFinite(state.budgetM)) {
    return { error: 'enter a budget in million USD' };
  }
  return null;
}

async function solve() {
  if (!state.preset) return;
  const seq = ++latest.solve;
  const problem = localProblem();
  updateRequestText();
  if (problem) { showError(problem); return; }
  try {
    if (state.mode === 'scale') {
      const report = await api('POST', '/v1/scale',
        { request: scaleRequest(), gpu_counts: [state.gpus.trim()] });
      if (seq !== latest.solve) return;
      state.row = report.rows[0];
      state.plan = null;
      showError(null);
      showFigures(state.row, null);
      state.markerGpus = Number(state.row.counts.gpu_count);
    } else {
      const plan = await api('POST', '/v1/plan', currentRequest());
      if (seq !== latest.solve) return;
      state.plan = plan;
      state.row = null;
      showError(null);
      showFigures(plan, plan);
      state.markerGpus = Number(plan.counts.gpu_count);
    }
    const wanted = chartMaxFor(state.markerGpus);
    if (wanted !== state.chartMax) {
      state.chartMax = wanted;
      refreshChart();
    } else {
      drawChart();
    }
  } catch (e) {
    if (seq !== latest.solve) return;
    showError(e);
  }
}

function chartMaxFor(gpus) {
  if (!(gpus > MAX_SLIDER_GPUS)) return MAX_SLIDER_GPUS;
  return Math.min(1e12, Math.pow(10, Math.ceil(Math.log10(gpus))));
}

// ~60 log-spaced sizes from 1 to the chart's end.
function chartSizes() {
  const decades = Math.log10(state.chartMax);
  const n = Math.max(60, Math.round(10 * decades));
  const sizes = [];
  for (let i = 0; i <= n; ++i) {
    const g = Math.round(Math.pow(10, (decades * i) / n));
    if (!sizes.length || g > sizes[sizes.length - 1]) sizes.push(g);
  }
  return sizes;
}

async function refreshChart() {
  if (!state.preset) return;
  const seq = ++latest.chart;
  if (localProblem()) return;
  try {
    const report = await api('POST', '/v1/scale',
      { request: scaleRequest(), gpu_counts: chartSizes().map(String) });
    if (seq !== latest.chart) return;
    state.chartRows = report.rows;
    drawChart();
  } catch (e) {
    if (seq !== latest.chart) return;
    // Keep the last good curves (greyed while the error shows).
    drawChart();
  }
}

// ---------------------------------------------------------------------------------------------
// What the page shows
// ---------------------------------------------------------------------------------------------

function setText(id, text) {
  const el = $(id);
  if (el.textContent !== text) el.textContent = text;
}

// `x` is a ScaleRow or a Plan (both have counts, compute, power, cost); `plan` the Plan or null.
function showFigures(x, plan) {
  const c = x.counts, cp = x.compute, pw = x.power, cost = x.cost || {};
  setText('gpus', fmt.count(c.gpu_count));
  setText('servers', fmt.count(c.server_count));
  setText('racks', fmt.count(c.rack_count));
  setText('pods', fmt.count(c.pod_count));
  setText('buildings', fmt.count(c.building_count));
  setText('peak', fmt.rate(cp.peak_flops_per_second));
  setText('mfu', fmt.percent(cp.mfu));
  setText('realized', fmt.rate(cp.realized_flops_per_second));
  setText('it-power', fmt.power(pw.it_power_watts));
  setText('facility-power', fmt.power(pw.facility_power_watts));
  setText('pue-shown', '(PUE ' + formatFixed(Number(pw.pue), 2) + ')');
  const capex = Number(cost.capex_usd || 0);
  setText('capex', fmt.money(capex));
  setText('capex-note', capex > 0 ? '' : '(not priced)');
  $('mfu').title = cp.efficiency_model || '';
  setText('opex', fmt.money(cost.opex_usd_per_year || 0));
  setText('tco', fmt.money(cost.tco_usd || 0));
  setText('tco-years', cost.horizon_years ? '(' + Number(cost.horizon_years) + ' years)' : '');
  $('opex').title = 'energy ' + fmt.money(cost.energy_usd_per_year || 0) + ' a year for ' +
    fmt.count(Math.floor(Number(cost.energy_mwh_per_year || 0) + 0.5)) + ' MWh, maintenance ' +
    fmt.money(cost.maintenance_usd_per_year || 0) + ' a year';
  const notes = $('notes');
  notes.textContent = '';
  showAssumptions(plan);
  if (plan) {
    setText('binding', bindingName(plan.binding_constraint));
    setText('headroom', headroomText(plan.headroom || {}));
    for (const note of plan.notes || []) {
      const li = document.createElement('li');
      li.textContent = note;
      notes.appendChild(li);
    }
  } else {
    const perServer = state.preset && state.preset.hardware && state.preset.hardware.server
      ? Number(state.preset.hardware.server.gpus_per_server) : 0;
    if (perServer > 0 && Number(c.gpu_count) % perServer !== 0) {
      const li = document.createElement('li');
      li.textContent = 'the last server is partly filled (' + perServer +
        ' GPUs a server); dcplan fit solves in whole servers';
      notes.appendChild(li);
    }
  }
}

const ORIGIN_WORDS = {
  ORIGIN_PRESET: 'preset', ORIGIN_USER: 'you', ORIGIN_DERIVED: 'derived',
  ORIGIN_ESTIMATE: 'estimate', ORIGIN_DEFAULT: 'default',
};

// The plan's assumptions ledger, most influential first, as `dcplan fit` lists it.
function showAssumptions(plan) {
  const body = $('assumptions').querySelector('tbody');
  body.textContent = '';
  const list = (plan && plan.assumptions) || [];
  setText('assumptions-count', list.length ? '(' + list.length + ')' : '');
  for (const a of list) {
    const tr = document.createElement('tr');
    tr.dataset.path = a.path;
    if (a.origin === 'ORIGIN_USER') tr.className = 'user';
    let value = a.text_value || '';
    if (!value) {
      const v = Number(a.value || 0);
      value = a.unit === 'W' ? fmt.power(v) : a.unit === 'USD' ? fmt.money(v)
        : String(v) + (a.unit && a.unit !== '1' ? ' ' + a.unit : '');
    }
    const influence = Number(a.influence || 0);
    for (const cell of [a.path, value, ORIGIN_WORDS[a.origin] || '',
      influence > 0 ? (100 * influence).toFixed(1) + '%' : '–', a.source || '']) {
      const td = document.createElement('td');
      td.textContent = cell;
      td.title = cell;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
}

// The CLI's headroom line: "facility power 1.3 kW; budget $12.00M".
function headroomText(h) {
  const parts = [];
  if ('facility_power_watts' in h) parts.push('facility power ' + fmt.power(h.facility_power_watts));
  if ('it_power_watts' in h) parts.push('IT power ' + fmt.power(h.it_power_watts));
  if ('substation_watts' in h) parts.push('substation ' + fmt.power(h.substation_watts));
  if ('gpus' in h) parts.push('GPUs ' + fmt.count(h.gpus));
  if ('buildings' in h) parts.push('buildings ' + h.buildings);
  if ('budget_usd' in h) parts.push('budget ' + fmt.money(h.budget_usd));
  return parts.length ? parts.join('; ') : 'none (no cap)';
}

function updateRequestText() {
  const text = JSON.stringify(currentRequest(), null, 1);
  const area = $('request-json');
  if (area.value !== text) area.value = text;
}

// ---------------------------------------------------------------------------------------------
// The chart: compute, MFU and power against GPUs on a log axis, one panel each
// ---------------------------------------------------------------------------------------------

const SVG_NS = 'http://www.w3.org/2000/svg';
const SERIES = [
  { key: 'peak', label: 'peak compute', panel: 0, cls: 's-peak', get: (r) => Number(r.compute.peak_flops_per_second) },
  { key: 'realized', label: 'realized compute', panel: 0, cls: 's-realized', get: (r) => Number(r.compute.realized_flops_per_second) },
  { key: 'mfu', label: 'MFU', panel: 1, cls: 's-mfu', get: (r) => Number(r.compute.mfu) },
  { key: 'it', label: 'IT power', panel: 2, cls: 's-it', get: (r) => Number(r.power.it_power_watts) },
  { key: 'facility', label: 'facility power', panel: 2, cls: 's-facility', get: (r) => Number(r.power.facility_power_watts) },
];

function el(name, attrs, text) {
  const e = document.createElementNS(SVG_NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}

function decadeRange(values) {
  const pos = values.filter((v) => v > 0 && Number.isFinite(v));
  if (!pos.length) return [1, 10];
  let lo = Math.floor(Math.log10(Math.min(...pos)));
  let hi = Math.ceil(Math.log10(Math.max(...pos)));
  if (hi <= lo) hi = lo + 1;
  return [Math.pow(10, lo), Math.pow(10, hi)];
}

function shortCount(g) {
  if (g >= 1e12) return g / 1e12 + 'T';
  if (g >= 1e9) return g / 1e9 + 'B';
  if (g >= 1e6) return g / 1e6 + 'M';
  if (g >= 1e3) return g / 1e3 + 'k';
  return String(g);
}

function drawChart() {
  const box = $('chart');
  const W = Math.max(320, box.clientWidth), H = Math.max(240, box.clientHeight);
  const svg = el('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H });
  const rows = state.chartRows;
  const m = { left: 100, right: 122, top: 22, bottom: 40 };
  const plotW = W - m.left - m.right;
  const gap = 14;
  const avail = H - m.top - m.bottom - 2 * gap;
  const heights = [0.42, 0.25, 0.33].map((f) => Math.round(avail * f));
  const tops = [m.top, m.top + heights[0] + gap, m.top + heights[0] + heights[1] + 2 * gap];
  const xMax = state.chartMax;
  const x = (g) => m.left + (Math.log10(Math.max(1, g)) / Math.log10(xMax)) * plotW;

  const panels = [
    { title: 'compute', unit: 'FLOP/s', log: true, fmtTick: (v) => fmt.rate(v, 0) },
    { title: 'MFU', unit: '%', log: false, fmtTick: (v) => fmt.percent(v, 0) },
    { title: 'power', unit: 'W', log: true, fmtTick: (v) => fmt.power(v, 0) },
  ];
  const markerRow = state.mode === 'scale' ? state.row : state.plan;
  panels.forEach((p, i) => {
    const series = SERIES.filter((s) => s.panel === i);
    const values = [];
    for (const s of series) for (const r of rows) values.push(s.get(r));
    if (markerRow) for (const s of series) values.push(s.get(markerRow));
    if (i === 2 && state.mode === 'fits' && state.powerMw > 0) values.push(state.powerMw * 1e6);
    let lo, hi;
    if (p.log) {
      [lo, hi] = decadeRange(values);
    } else {
      lo = 0;
      hi = Math.max(0.1, Math.ceil(Math.max(0, ...values.filter(Number.isFinite)) * 10) / 10);
    }
    const top = tops[i], h = heights[i];
    const y = p.log
      ? (v) => top + h - ((Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * h
      : (v) => top + h - ((v - lo) / (hi - lo)) * h;
    const g = el('g', { class: 'panel' });
    g.appendChild(el('rect', { x: m.left, y: top, width: plotW, height: h, class: 'frame' }));
    // y ticks
    const ticks = [];
    if (p.log) {
      const span = Math.round(Math.log10(hi / lo));
      const every = Math.max(1, Math.ceil(span / Math.max(2, Math.floor(h / 22))));
      for (let k = 0; k <= span; k += every) ticks.push(lo * Math.pow(10, k));
    } else {
      const step = hi > 0.4 ? 0.2 : 0.1;
      for (let v = 0; v <= hi + 1e-9; v += step) ticks.push(Math.round(v * 10) / 10);
    }
    for (const v of ticks) {
      const yy = y(v);
      g.appendChild(el('line', { x1: m.left, y1: yy, x2: m.left + plotW, y2: yy, class: 'grid' }));
      g.appendChild(el('text', { x: m.left - 6, y: yy + 4, class: 'tick', 'text-anchor': 'end' }, p.fmtTick(v)));
    }
    // axis title, rotated
    const ty = top + h / 2;
    g.appendChild(el('text', { x: 14, y: ty, class: 'axis', transform: 'rotate(-90 14 ' + ty + ')', 'text-anchor': 'middle' },
      p.title + ' (' + p.unit + ')'));
    // lines
    for (const s of series) {
      if (!rows.length) continue;
      const d = rows.map((r, j) => (j ? 'L' : 'M') + x(Number(r.counts.gpu_count)).toFixed(1) + ' ' + y(s.get(r)).toFixed(1)).join(' ');
      g.appendChild(el('path', { d, class: 'line ' + s.cls }));
    }
    // the power cap, in "what fits"
    if (i === 2 && state.mode === 'fits' && state.powerMw > 0) {
      const cap = state.powerMw * 1e6;
      if (cap >= lo && cap <= hi) {
        const cy = y(cap);
        g.appendChild(el('line', { x1: m.left, y1: cy, x2: m.left + plotW, y2: cy, class: 'cap' }));
        g.appendChild(el('text', { x: m.left + 6, y: cy - 4, class: 'cap-label' }, 'power cap ' + fmt.power(cap)));
      }
    }
    // marker dots and values
    if (markerRow && Number(markerRow.counts.gpu_count) > 0) {
      const mx = x(Number(markerRow.counts.gpu_count));
      let labelY = [];
      for (const s of series) {
        const v = s.get(markerRow);
        const my = y(v);
        g.appendChild(el('circle', { cx: mx, cy: my, r: 4, class: 'dot ' + s.cls }));
        const text = s.panel === 0 ? fmt.rate(v) : s.panel === 1 ? fmt.percent(v) : fmt.power(v);
        labelY.push({ y: my, text, cls: s.cls });
      }
      // value labels right of the plot, kept apart
      labelY.sort((a, b) => a.y - b.y);
      for (let k = 1; k < labelY.length; ++k) {
        if (labelY[k].y - labelY[k - 1].y < 14) labelY[k].y = labelY[k - 1].y + 14;
      }
      for (const l of labelY) {
        g.appendChild(el('text', { x: m.left + plotW + 8, y: Math.min(top + h, Math.max(top + 10, l.y + 4)), class: 'value ' + l.cls }, l.text));
      }
    }
    svg.appendChild(g);
  });

  // x axis: decades
  const bottom = tops[2] + heights[2];
  const decades = Math.round(Math.log10(xMax));
  const xEvery = decades > 8 ? 2 : 1;
  for (let k = 0; k <= decades; k += xEvery) {
    const v = Math.pow(10, k), xx = x(v);
    svg.appendChild(el('line', { x1: xx, y1: m.top, x2: xx, y2: bottom, class: 'grid' }));
    svg.appendChild(el('text', { x: xx, y: bottom + 16, class: 'tick', 'text-anchor': 'middle' }, shortCount(v)));
  }
  svg.appendChild(el('text', { x: m.left + plotW / 2, y: bottom + 34, class: 'axis', 'text-anchor': 'middle' },
    'cluster size (GPUs, log scale)'));

  // marker line
  if (markerRow && Number(markerRow.counts.gpu_count) > 0) {
    const g = Number(markerRow.counts.gpu_count);
    const mx = x(g);
    svg.appendChild(el('line', { x1: mx, y1: m.top - 6, x2: mx, y2: bottom, class: 'marker' }));
    const anchor = mx > m.left + plotW - 60 ? 'end' : mx < m.left + 60 ? 'start' : 'middle';
    svg.appendChild(el('text', { x: mx, y: m.top - 9, class: 'marker-label', 'text-anchor': anchor },
      fmt.count(markerRow.counts.gpu_count) + ' GPUs'));
  }
  box.replaceChildren(svg);
}

// ---------------------------------------------------------------------------------------------
// Controls
// ---------------------------------------------------------------------------------------------

// Log slider positions 0..1000 <-> values in [lo, hi], three significant digits.
function logFromPos(pos, [lo, hi]) {
  const v = Math.pow(10, Math.log10(lo) + (Number(pos) / 1000) * (Math.log10(hi) - Math.log10(lo)));
  return Number(v.toPrecision(3));
}
function posFromLog(v, [lo, hi]) {
  if (!(v > 0)) return 0;
  return Math.round(((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * 1000);
}

// The cluster-size slider is in doublings (log2 GPUs) from 1 to 2^20, capped at 1,000,000.
function gpusFromSlider(v) { return Math.min(MAX_SLIDER_GPUS, Math.round(Math.pow(2, Number(v)))); }
function sliderFromGpus(g) { return g > 0 ? Math.log2(Math.min(g, MAX_SLIDER_GPUS)) : 0; }

function setSliderLabel(id, text) { $(id).setAttribute('aria-valuetext', text); }

function syncGpus(fromSlider) {
  if (fromSlider) {
    state.gpus = String(gpusFromSlider($('gpus-slider').value));
    $('gpus-input').value = state.gpus;
  } else {
    state.gpus = $('gpus-input').value;
    const g = Number(state.gpus);
    if (g >= 1) $('gpus-slider').value = sliderFromGpus(g);
  }
  setSliderLabel('gpus-slider', /^\d+$/.test(state.gpus) ? fmt.count(state.gpus) + ' GPUs' : state.gpus);
}

function syncPower(fromSlider) {
  if (fromSlider) {
    state.powerMw = logFromPos($('power-slider').value, POWER_RANGE) / 1e6;
    $('power-input').value = state.powerMw;
  } else {
    state.powerMw = parseFloat($('power-input').value);
    if (state.powerMw > 0) $('power-slider').value = posFromLog(state.powerMw * 1e6, POWER_RANGE);
  }
  setSliderLabel('power-slider', fmt.power(state.powerMw * 1e6));
}

function syncBudget(fromSlider) {
  state.budgetOn = $('budget-on').checked;
  $('budget-slider').disabled = !state.budgetOn;
  $('budget-input').disabled = !state.budgetOn;
  if (fromSlider) {
    state.budgetM = logFromPos($('budget-slider').value, BUDGET_RANGE) / 1e6;
    $('budget-input').value = state.budgetM;
  } else {
    state.budgetM = parseFloat($('budget-input').value);
    if (state.budgetM > 0) $('budget-slider').value = posFromLog(state.budgetM * 1e6, BUDGET_RANGE);
  }
  setSliderLabel('budget-slider', state.budgetOn ? fmt.money(state.budgetM * 1e6) : 'no budget');
}

function syncPue(fromSlider) {
  if (fromSlider) {
    $('pue-input').value = $('pue-slider').value;
  } else if (Number.isFinite(parseFloat($('pue-input').value))) {
    $('pue-slider').value = $('pue-input').value;
  }
  state.pue = parseFloat($('pue-input').value);
  setSliderLabel('pue-slider', 'PUE ' + $('pue-input').value);
}

function syncPrice(fromSlider) {
  if (fromSlider) {
    $('price-input').value = $('price-slider').value;
  } else if (Number.isFinite(parseFloat($('price-input').value))) {
    $('price-slider').value = $('price-input').value;
  }
  state.price = parseFloat($('price-input').value);
  setSliderLabel('price-slider', Number.isFinite(state.price) ? fmt.usdPerKwh(state.price) : '');
}

function setMode(mode) {
  state.mode = mode;
  document.body.classList.toggle('mode-scale', mode === 'scale');
  document.body.classList.toggle('mode-fits', mode === 'fits');
  $('mode-' + mode).checked = true;
  state.chartMax = MAX_SLIDER_GPUS;
  setText('marker-what', mode === 'scale' ? 'slider position' : 'largest cluster that fits');
  solve();
  refreshChart();
}

async function loadPreset(name) {
  state.presetName = name;
  const summary = state.presets.find((p) => p.name === name);
  setText('preset-summary', summary ? summary.summary : '');
  try {
    const preset = await api('GET', '/v1/presets/' + encodeURIComponent(name));
    if (state.presetName !== name) return;
    state.preset = preset;
  } catch (e) {
    showError(e);
    return;
  }
  const pue = state.preset.site && state.preset.site.pue !== undefined ? Number(state.preset.site.pue) : 1.3;
  $('pue-input').value = pue;
  syncPue(false);
  const price = state.preset.costs ? Number(state.preset.costs.electricity_usd_per_kwh || 0) : 0;
  $('price-input').value = price;
  syncPrice(false);
  state.chartMax = MAX_SLIDER_GPUS;
  solve();
  refreshChart();
}

function download(filename, text) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

async function copyRequest() {
  updateRequestText();
  const area = $('request-json');
  const text = area.value;
  area.focus();
  area.select();
  let ok = false;
  try {
    if (navigator.clipboard) {
      await navigator.clipboard.writeText(text);
      ok = true;
    }
  } catch (e) { ok = false; }
  if (!ok) {
    try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
  }
  setText('copy-status', ok ? 'copied' : 'the clipboard is not available: the text below is selected, copy it by hand');
  setTimeout(() => setText('copy-status', ''), 4000);
}

async function downloadPlan() {
  // The Plan `dcplan fit --request` gives for the request on display.
  let plan = state.mode === 'fits' ? state.plan : null;
  try {
    if (!plan) plan = await api('POST', '/v1/plan', currentRequest());
  } catch (e) {
    showError(e);
    return;
  }
  download((state.presetName || 'plan') + '-plan.json', JSON.stringify(plan, null, 1) + '\n');
}

function bind(id, fn) {
  $(id).addEventListener('input', () => { fn(); solve(); });
}

function bindAll() {
  bind('gpus-slider', () => syncGpus(true));
  bind('gpus-input', () => syncGpus(false));
  bind('power-slider', () => syncPower(true));
  bind('power-input', () => syncPower(false));
  bind('budget-slider', () => syncBudget(true));
  bind('budget-input', () => syncBudget(false));
  $('budget-on').addEventListener('change', () => { syncBudget(false); solve(); });
  // PUE and the electricity price change the chart too.
  bind('pue-slider', () => { syncPue(true); refreshChart(); });
  bind('pue-input', () => { syncPue(false); refreshChart(); });
  bind('price-slider', () => { syncPrice(true); refreshChart(); });
  bind('price-input', () => { syncPrice(false); refreshChart(); });
  $('preset').addEventListener('change', (e) => loadPreset(e.target.value));
  $('mode-scale').addEventListener('change', () => setMode('scale'));
  $('mode-fits').addEventListener('change', () => setMode('fits'));
  $('copy-request').addEventListener('click', copyRequest);
  $('download-plan').addEventListener('click', downloadPlan);
  let resizeTimer = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(drawChart, 50);
  });
}

async function main() {
  bindAll();
  document.body.classList.add('mode-scale');
  $('gpus-input').value = state.gpus;
  syncGpus(false);
  $('power-input').value = state.powerMw;
  syncPower(false);
  $('budget-input').value = state.budgetM;
  syncBudget(false);
  drawChart();
  try {
    const list = await api('GET', '/v1/presets');
    state.presets = list.presets || [];
  } catch (e) {
    showError(e);
    return;
  }
  const select = $('preset');
  for (const p of state.presets) {
    const o = document.createElement('option');
    o.value = p.name;
    o.textContent = p.name;
    o.title = p.summary;
    select.appendChild(o);
  }
  const first = state.presets.some((p) => p.name === 'seed') ? 'seed' : (state.presets[0] || {}).name;
  if (first) {
    select.value = first;
    await loadPreset(first);
  }
  document.body.dataset.ready = 'true';
}

main();
