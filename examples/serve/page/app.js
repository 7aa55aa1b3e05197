// File: examples/serve/page/app.js
//
// The page of `dcplan serve`: a preset picker and three views, "scale a cluster" (one cluster size
// on a log slider, POST /v1/scale), "what fits" (every input `dcplan fit` takes, POST /v1/plan) and
// "compare" (2-4 presets, or a preset and an edited copy, POST /v1/compare). The inputs are the
// CLI's flags with the CLI's values: each one given is sent as `?set=FLAG=VALUE` in the CLI's order
// (examples/cli/flags.cc RequestFlagNames), then the edits (--set), so the server builds exactly the
// request `dcplan fit` builds from the same flags. The whole state lives in the URL, named like the
// flags (/?preset=h100-dgx&power=100MW&budget=$2B). Exports: the Plan as JSON, one CSV row
// (POST /v1/plan?format=csv, the columns of `dcplan fit --format=csv`), the chart as SVG and PNG.
// Every number is formatted as the CLI formats it (units/format.cc, mirrored in `fmt` below).
// Talks only to the server that served it; fetches nothing else.
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

// The request flags, in the order the CLI applies them (examples/cli/flags.cc RequestFlagNames):
// the flag, its input and the field path it sets (planner/request_edit.cc Aliases).
const FLAGS = [
  ['power', 'power-input', 'constraints.power_cap_watts', 'power cap'],
  ['power_at', 'power-at', 'constraints.power_cap_at', 'measured at'],
  ['cooling', 'cooling', 'site.cooling', 'cooling'],
  ['pue', 'pue-input', 'site.pue', 'PUE'],
  ['annual_pue', 'annual-pue', 'site.annual_pue', 'annual PUE'],
  ['provisioning', 'provisioning', 'site.provisioning.basis', 'provisioning'],
  ['provisioning_margin', 'provisioning-margin', 'site.provisioning.margin', 'provisioning margin'],
  ['max_gpus', 'max-gpus', 'constraints.max_gpus', 'GPUs at most'],
  ['max_buildings', 'max-buildings', 'site.max_buildings', 'buildings at most'],
  ['budget', 'budget-input', 'constraints.budget_usd', 'budget'],
  ['budget_on', 'budget-on', 'constraints.budget_on', 'budget on'],
  ['horizon_years', 'horizon', 'costs.horizon_years', 'horizon'],
  ['electricity', 'price-input', 'costs.electricity_usd_per_kwh', 'electricity price'],
  ['gpu_price', 'gpu-price', 'hardware.accelerator.price_usd', 'GPU price'],
  ['server_price', 'server-price', 'hardware.server.price_usd', 'server price'],
  ['wacc', 'wacc', 'costs.wacc', 'WACC'],
  ['facility_cost', 'facility-cost', 'costs.facility_usd_per_it_watt', 'facility cost'],
  ['it_life', 'it-life', 'costs.it_life_years', 'IT life'],
];
// Flags that only caps use: not sent in "scale a cluster" (no cap applies there).
const CAP_FLAGS = new Set(['power', 'power_at', 'max_gpus', 'budget', 'budget_on']);

const state = {
  mode: 'scale',
  preset: null,        // the preset's PlanRequest as the server gave it
  presetName: '',
  presets: [],
  gpus: '32768',       // the cluster size as typed or slid (a string, sent as a uint64)
  request: null,       // the request on display (the preset with the flags applied)
  plan: null,          // the Plan on display (what fits) or null
  row: null,           // the ScaleRow on display (scale a cluster) or null
  comparison: null,    // the Comparison on display (compare) or null
  chartRows: [],       // the chart's ScaleRows
  chartKey: '',        // what they were asked for (chartRequest and the chart's end)
  chartMax: MAX_SLIDER_GPUS,
  markerGpus: 0,
};

// Responses older than the newest request of their kind are dropped, so what is shown always
// matches the latest input.
const latest = { solve: 0, chart: 0, done: 0 };

// Whether what is shown answers the latest input (every solve has finished or been dropped).
function settled() { return latest.done === latest.solve; }

async function api(method, path, body, text) {
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
  if (text && response.ok) return response.text();
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

function lines(id) {
  return $(id).value.split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
}

// The flags given, [flag, text] in the CLI's order (empty inputs are flags not given: the preset's
// value applies, and the input's placeholder shows it).
function givenFlags() {
  const out = [];
  for (const [flag, id] of FLAGS) {
    if (state.mode === 'scale' && CAP_FLAGS.has(flag)) continue;
    const v = $(id).value.trim();
    if (v !== '') out.push([flag, v]);
  }
  return out;
}

// The query string that makes the server build the request `dcplan fit` builds from these flags.
function setQuery() {
  const q = new URLSearchParams();
  for (const [flag, v] of givenFlags()) q.append('set', flag + '=' + v);
  for (const l of lines('set-lines')) q.append('set', l);
  return q;
}

function comparePresets() {
  const names = [];
  for (let i = 1; i <= 4; ++i) {
    const v = $('compare-' + i).value;
    if (v && !names.includes(v)) names.push(v);
  }
  return names;
}

// The page's state as a URL: the CLI's flag names and values.
function stateUrl() {
  const q = new URLSearchParams();
  if (state.mode === 'compare') {
    q.set('compare', comparePresets().join(','));
  } else {
    q.set('preset', state.presetName);
  }
  if (state.mode === 'scale') q.set('gpus', state.gpus.trim());
  for (const [flag, v] of givenFlags()) q.append(flag, v);
  for (const l of lines('set-lines')) q.append('set', l);
  if (state.mode === 'compare') for (const l of lines('edit-lines')) q.append('edit', l);
  if (state.mode === 'fits') {
    for (const l of lines('uncertain-lines')) q.append('uncertain', l);
    if ($('sensitivity').checked) q.set('sensitivity', 'true');
  }
  // "$" and "," read as they are in a URL's query.
  return location.pathname + '?' + q.toString().replace(/%24/g, '$').replace(/%2C/g, ',');
}

function saveUrl() {
  const url = stateUrl();
  if (location.pathname + location.search !== url) history.replaceState(null, '', url);
}

// The page's control for a request field, and the name a person knows it by: an error about the
// field (its path travels in the answer's `field`) highlights the control and speaks its name.
const FIELD_CONTROLS = Object.fromEntries(FLAGS.map(([, id, path, name]) => [path, [id, name]]));
FIELD_CONTROLS['constraints.max_gpus'] = ['gpus-input', 'GPUs'];

function showError(e) {
  const el = $('error');
  for (const c of document.querySelectorAll('[aria-invalid]')) c.removeAttribute('aria-invalid');
  if (!e) {
    el.textContent = '';
    el.classList.remove('shown');
    document.body.classList.remove('has-error');
    return;
  }
  let field = (e.field || '').replace(/^request\./, '');
  let control = FIELD_CONTROLS[field];
  if (field === 'constraints.max_gpus' && state.mode !== 'scale') control = ['max-gpus', 'GPUs at most'];
  let message = e.error;
  if (control) {
    $(control[0]).setAttribute('aria-invalid', 'true');
    message = message.split(field).join(control[1]) + ' (' + field + ')';
  } else if (e.field && message.indexOf(e.field) < 0) {
    message += ' (' + e.field + ')';
  }
  if (e.field === 'set' || /^set=/.test(e.error || '')) $('set-lines').setAttribute('aria-invalid', 'true');
  if (e.field === 'edit') $('edit-lines').setAttribute('aria-invalid', 'true');
  if (/^uncertain/.test(e.field || '')) $('uncertain-lines').setAttribute('aria-invalid', 'true');
  el.textContent = message;
  el.classList.add('shown');
  document.body.classList.add('has-error');
}

function localProblem() {
  if (state.mode === 'scale' && !/^\s*\d+\s*$/.test(state.gpus)) {
    return { error: 'enter a whole number of GPUs (1 to 1,000,000,000,000)', field: 'constraints.max_gpus' };
  }
  if (state.mode === 'compare' && comparePresets().length + (lines('edit-lines').length ? 1 : 0) < 2) {
    return { error: 'pick at least two presets to compare (or one and an edited copy)' };
  }
  return null;
}

async function solve() {
  const seq = ++latest.solve;
  try {
    await solveOnce(seq);
  } finally {
    if (seq === latest.solve) latest.done = seq;
  }
}

async function solveOnce(seq) {
  if (!state.preset && state.mode !== 'compare') return;
  saveUrl();
  const problem = localProblem();
  if (problem) { showError(problem); return; }
  const q = setQuery();
  try {
    if (state.mode === 'compare') {
      const cq = new URLSearchParams(q);
      for (const l of lines('edit-lines')) cq.append('edit', l);
      const comparison = await api('POST', '/v1/compare?' + cq.toString(), { presets: comparePresets() });
      if (seq !== latest.solve) return;
      state.comparison = comparison;
      showError(null);
      showComparison(comparison);
      drawCompareChart();
      setText('request-json', '');
      $('request-json').value = '';
      return;
    }
    const request = await api('POST', '/v1/request?' + q.toString(), state.preset);
    if (seq !== latest.solve) return;
    if (state.mode === 'scale') {
      const shown = clone(request);
      shown.constraints = { max_gpus: state.gpus.trim() };
      state.request = request;
      showRequest(shown);
      const report = await api('POST', '/v1/scale', { request, gpu_counts: [state.gpus.trim()] });
      if (seq !== latest.solve) return;
      state.row = report.rows[0];
      state.plan = null;
      showError(null);
      showFigures(state.row, null);
      state.markerGpus = Number(state.row.counts.gpu_count);
    } else {
      // Uncertain inputs as --uncertain=PATH=DIST and --sensitivity set them (the distribution as
      // text, which the server reads in the field's unit).
      const uncertain = lines('uncertain-lines').map((l) => {
        const eq = l.indexOf('=');
        return eq < 0 ? { path: l, text: '' } : { path: l.slice(0, eq).trim(), text: l.slice(eq + 1).trim() };
      });
      if (uncertain.length) request.uncertain = uncertain;
      if (uncertain.length && $('sensitivity').checked) request.monte_carlo = { sensitivity: true };
      state.request = request;
      showRequest(request);
      const plan = await api('POST', '/v1/plan', request);
      if (seq !== latest.solve) return;
      state.plan = plan;
      state.row = null;
      showError(null);
      showFigures(plan, plan);
      state.markerGpus = Number(plan.counts.gpu_count);
    }
    state.chartMax = chartMaxFor(state.markerGpus);
    maybeRefreshChart();
  } catch (e) {
    if (seq !== latest.solve) return;
    showError(e);
  }
}

function chartMaxFor(gpus) {
  if (!(gpus > MAX_SLIDER_GPUS)) return MAX_SLIDER_GPUS;
  return Math.min(1e12, Math.pow(10, Math.ceil(Math.log10(gpus))));
}

// Log-spaced sizes from 1 to the chart's end, five a decade (at least 31).
function chartSizes() {
  const decades = Math.log10(state.chartMax);
  const n = Math.max(30, Math.round(5 * decades));
  const sizes = [];
  for (let i = 0; i <= n; ++i) {
    const g = Math.round(Math.pow(10, (decades * i) / n));
    if (!sizes.length || g > sizes[sizes.length - 1]) sizes.push(g);
  }
  return sizes;
}

// The chart's bands with uncertain inputs: at most this many Monte Carlo samples a size (fewer
// if the request asks for fewer), so the whole chart stays a second or two of the server's time.
const CHART_SAMPLES = 2000;
// Sizes per POST /v1/scale: the chart arrives in a few requests, so a plan asked for meanwhile
// is answered between two of them rather than after the whole chart.
const CHART_CHUNK = 8;

// The request the chart's curves are of: the plan's, its uncertain inputs sampled at most
// CHART_SAMPLES times a size; no sensitivity (the tornado is the plan's).
function chartRequest() {
  const request = clone(state.request);
  if (request.uncertain && request.uncertain.length) {
    const mc = request.monte_carlo || {};
    const asked = Number(mc.samples || 0);
    request.monte_carlo = { samples: String(asked > 0 ? Math.min(asked, CHART_SAMPLES) : CHART_SAMPLES) };
    if (mc.seed) request.monte_carlo.seed = mc.seed;
  } else {
    delete request.uncertain;
    delete request.monte_carlo;
  }
  return request;
}

// Redraws the curves when what they depend on changed (the request but its caps, which scale
// does not apply, and the chart's end); a burst of inputs asks once, after it.
let chartTimer = 0;
function maybeRefreshChart() {
  const request = chartRequest();
  const key = JSON.stringify([state.chartMax, { ...request, constraints: undefined }]);
  if (key === state.chartKey) {  // asked for already (drawn, or on its way)
    drawChart();
    return;
  }
  state.chartKey = key;
  drawChart();
  clearTimeout(chartTimer);
  chartTimer = setTimeout(() => refreshChart(request), state.chartRows.length ? 200 : 0);
}

async function refreshChart(request) {
  if (!state.request || state.mode === 'compare') return;
  const seq = ++latest.chart;
  const sizes = chartSizes();
  const rows = [];
  try {
    for (let i = 0; i < sizes.length; i += CHART_CHUNK) {
      const report = await api('POST', '/v1/scale',
        { request, gpu_counts: sizes.slice(i, i + CHART_CHUNK).map(String) });
      if (seq !== latest.chart) return;
      rows.push(...report.rows);
      // The old curves stay until the new ones are whole; with none, the pieces draw as they come.
      if (i + CHART_CHUNK >= sizes.length || !state.chartRows.length) {
        state.chartRows = rows.slice();
        drawChart();
      }
    }
    document.body.dataset.chart = String(seq);
  } catch (e) {
    if (seq !== latest.chart) return;
    state.chartKey = '';  // asked again by the next solve
    drawChart();  // keep the last good curves (greyed while the error shows)
  }
}

// ---------------------------------------------------------------------------------------------
// What the page shows
// ---------------------------------------------------------------------------------------------

function setText(id, text) {
  const el = $(id);
  if (el.textContent !== text) el.textContent = text;
  el.classList.toggle('none', text === 'not priced');
}

// Money the preset does not price reads "not priced", never "$0.00".
function moneyOrNot(usd, decimals) {
  const v = Number(usd || 0);
  return v > 0 ? fmt.money(v, decimals) : 'not priced';
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
  $('mfu').title = cp.efficiency_model || '';
  setText('capex', moneyOrNot(cost.capex_usd));
  setText('capital', moneyOrNot(cost.capital_usd_per_year));
  setText('opex', moneyOrNot(cost.opex_usd_per_year));
  setText('tco', moneyOrNot(cost.tco_usd));
  setText('gpu-hour', moneyOrNot(cost.usd_per_gpu_hour));
  setText('tco-years', cost.horizon_years ? '(' + Number(cost.horizon_years) + ' years)' : '');
  $('opex').title = 'energy ' + fmt.money(cost.energy_usd_per_year || 0) + ' a year for ' +
    fmt.count(Math.floor(Number(cost.energy_mwh_per_year || 0) + 0.5)) + ' MWh, maintenance ' +
    fmt.money(cost.maintenance_usd_per_year || 0) + ' a year';
  const notes = $('notes');
  notes.textContent = '';
  showAssumptions(plan);
  drawBreakdown(pw, cost);
  if (plan) {
    setText('binding', bindingName(plan.binding_constraint));
    setText('headroom', headroomText(plan.headroom || {}));
    setText('marginal', marginalText(plan));
    showRanges(plan);
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

// With uncertain inputs: P10 / P50 / P90 of the headline figures (the CLI's distribution table),
// the share of samples each cap binds, and the tornado.
const RANGE_ROWS = [
  ['GPUs', 'gpu_count', (v) => fmt.count(Math.round(v))],
  ['realized compute', 'realized_flops_per_second', (v) => fmt.rate(v)],
  ['facility power', 'facility_power_watts', (v) => fmt.power(v)],
  ['capex', 'capex_usd', (v) => moneyOrNot(v)],
  ['TCO', 'tco_usd', (v) => moneyOrNot(v)],
  ['per GPU-hour', 'usd_per_gpu_hour', (v) => moneyOrNot(v)],
];

function showRanges(plan) {
  const box = $('ranges');
  box.textContent = '';
  $('tornado').textContent = '';
  const d = plan.distribution;
  if (!d || !d.samples) return;
  const table = document.createElement('table');
  table.id = 'ranges-table';
  const cap = document.createElement('caption');
  cap.textContent = 'over ' + fmt.count(d.samples) + ' samples of the uncertain inputs';
  table.appendChild(cap);
  const head = document.createElement('tr');
  for (const t of ['', 'P10', 'P50', 'P90']) {
    const th = document.createElement('th');
    th.textContent = t;
    head.appendChild(th);
  }
  table.appendChild(head);
  for (const [name, key, f] of RANGE_ROWS) {
    const p = d[key];
    if (!p) continue;
    const tr = document.createElement('tr');
    tr.dataset.key = key;
    for (const t of [name, f(Number(p.p10 || 0)), f(Number(p.p50 || 0)), f(Number(p.p90 || 0))]) {
      const td = document.createElement('td');
      td.textContent = t;
      tr.appendChild(td);
    }
    table.appendChild(tr);
  }
  box.appendChild(table);
  if ((d.binding || []).length) {
    const p = document.createElement('p');
    p.className = 'hint';
    p.textContent = 'binds: ' + d.binding.map((b) => bindingName(b.binding_constraint) + ' ' +
      fmt.percent(Number(b.fraction || 0), 0)).join(', ');
    box.appendChild(p);
  }
  drawTornado(plan);
}

// The tornado: one bar per uncertain input from the output at its P10 to the output at its P90,
// around the plan's own value, largest swing first (as `dcplan sensitivity --format=svg`).
function drawTornado(plan) {
  const entries = plan.sensitivity || [];
  if (!entries.length) return;
  const box = $('tornado');
  const out = plan.sensitivity_output || 'tco_usd';
  const f = /usd/.test(out) ? (v) => fmt.money(v) : /watts/.test(out) ? (v) => fmt.power(v)
    : /flops/.test(out) ? (v) => fmt.rate(v) : (v) => fmt.count(Math.round(v));
  // Margins from the labels: the inputs' paths left of the bars, the swings right of them.
  const W = Math.max(200, box.clientWidth || 400), rowH = 22;
  const left = 6 + Math.max(...entries.map((e) => textWidth(e.path, 11)));
  const right = 6 + Math.max(...entries.map((e) => textWidth(f(Math.abs(Number(e.output_at_high || 0) -
    Number(e.output_at_low || 0))), 11)));
  const H = 26 + entries.length * rowH;
  let title = 'tornado: ' + out + ' from each input\'s P10 to its P90';
  if (textWidth(title, 12, 700) > W) title = 'tornado: ' + out + ', P10 to P90';
  const values = entries.flatMap((e) => [Number(e.output_at_low || 0), Number(e.output_at_high || 0)]);
  const lo = Math.min(...values), hi = Math.max(...values);
  const x = (v) => left + ((v - lo) / Math.max(hi - lo, 1e-300)) * (W - left - right);
  const svg = el('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, xmlns: SVG_NS, class: 'tornado' });
  svg.appendChild(el('text', { x: 0, y: 14, class: 'bar-name' }, title));
  entries.forEach((e, i) => {
    const y = 24 + i * rowH;
    const a = Number(e.output_at_low || 0), b = Number(e.output_at_high || 0);
    svg.appendChild(el('text', { x: left - 6, y: y + 13, class: 'bar-label', 'text-anchor': 'end' }, e.path));
    svg.appendChild(el('rect', { x: x(Math.min(a, b)), y, width: Math.max(1, Math.abs(x(b) - x(a))), height: 16,
      fill: '#1f5fa8', class: 'tbar' }));
    svg.appendChild(el('text', { x: x(Math.max(a, b)) + 4, y: y + 13, class: 'bar-label' }, f(Math.abs(b - a))));
  });
  box.replaceChildren(svg);
}

// The CLI's "marginal" line (examples/cli/report.cc) and the next discrete step.
function marginalText(plan) {
  const m = plan.marginal || {};
  const parts = [];
  if ('gpus_per_megawatt' in m) {
    parts.push('+' + fmt.count(Math.floor(Number(m.gpus_per_megawatt))) + ' GPUs (+' +
      fmt.rate(m.realized_flops_per_second_per_megawatt || 0) + ') per MW more');
  }
  if ('gpus_per_100m_usd' in m) {
    parts.push('+' + fmt.count(Math.floor(Number(m.gpus_per_100m_usd))) + ' GPUs (+' +
      fmt.rate(m.realized_flops_per_second_per_100m_usd || 0) + ') per $100M more');
  }
  if (plan.next_step && plan.next_step.description) {
    parts.push(plan.next_step.description + ' (+' + fmt.power(plan.next_step.added_facility_power_watts || 0) +
      ', +' + fmt.money(plan.next_step.added_capex_usd || 0) + ')');
  }
  return parts.length ? parts.join('; ') : '–';
}

const ORIGIN_WORDS = {
  ORIGIN_PRESET: 'preset', ORIGIN_USER: 'you', ORIGIN_DERIVED: 'derived',
  ORIGIN_ESTIMATE: 'estimate', ORIGIN_DEFAULT: 'default',
};

// The assumptions ledger value as --set takes it back (the number in the field's own unit, or
// the enum's name).
function ledgerSetText(a) {
  if (a.text_value) return a.text_value;
  return String(Number(a.value || 0));
}

// Replaces (or adds) the edit of `path` in the edits box: the ledger is edited through --set paths.
function setEdit(path, value) {
  const kept = lines('set-lines').filter((l) => l.split('=')[0].trim() !== path);
  kept.push(path + '=' + value);
  $('set-lines').value = kept.join('\n');
  solve();
}

// The plan's assumptions ledger, most influential first, as `dcplan fit` lists it; each value
// is an input: a change becomes the edit PATH=VALUE.
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
    const cells = [a.path, null, ORIGIN_WORDS[a.origin] || '',
      influence > 0 ? (100 * influence).toFixed(1) + '%' : '–'];
    for (const cell of cells) {
      const td = document.createElement('td');
      if (cell === null) {
        const input = document.createElement('input');
        input.type = 'text';
        input.value = ledgerSetText(a);
        input.title = value;
        input.setAttribute('aria-label', a.path + ' (' + value + ')');
        input.addEventListener('change', () => setEdit(a.path, input.value.trim()));
        td.appendChild(input);
      } else {
        td.textContent = cell;
      }
      tr.appendChild(td);
    }
    body.appendChild(tr);
    // Its source on a line of its own under it, the table's full width (it is the longest text).
    if (a.source) {
      const src = document.createElement('tr');
      src.className = 'source';
      const td = document.createElement('td');
      td.colSpan = cells.length;
      td.textContent = a.source;
      src.appendChild(td);
      body.appendChild(src);
    }
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

function showRequest(request) {
  const text = JSON.stringify(request, null, 1);
  const area = $('request-json');
  if (area.value !== text) area.value = text;
}

// The power and capex breakdowns as two stacked bars, the CLI's "power" and "money" parts.
const POWER_PARTS = [
  ['gpu_power_watts', 'accelerators', '#1f5fa8'], ['server_overhead_power_watts', 'server rest', '#6a9bd1'],
  ['rack_overhead_power_watts', 'rack overhead', '#9fc0e4'], ['network_power_watts', 'network', '#7b4bb3'],
  ['storage_power_watts', 'storage', '#b39ddb'], ['frontend_network_power_watts', 'frontend net', '#d1c4e9'],
  ['head_node_power_watts', 'head nodes', '#888'], ['cooling_and_losses_power_watts', 'cooling and losses', '#c0392b'],
];
const CAPEX_PARTS = [
  ['servers_usd', 'servers', '#1f5fa8'], ['racks_usd', 'racks', '#9fc0e4'], ['network_usd', 'network', '#7b4bb3'],
  ['storage_usd', 'storage', '#b39ddb'], ['frontend_network_usd', 'frontend net', '#d1c4e9'],
  ['head_nodes_usd', 'head nodes', '#888'], ['facility_usd', 'facility', '#d9691f'], ['site_fixed_usd', 'site', '#e6b17e'],
];

function drawBreakdown(pw, cost) {
  const box = $('breakdown');
  const W = Math.max(200, box.clientWidth || 400);
  const rows = [['power', pw, POWER_PARTS, (v) => fmt.power(v)], ['capex', cost.capex || {}, CAPEX_PARTS, (v) => fmt.money(v)]];
  const perRow = Math.max(1, Math.floor((W - 52) / 175));
  const colW = (W - 52) / perRow;
  const svg = el('svg', { width: W, height: 10, class: 'bars', xmlns: SVG_NS });
  let y = 4;
  for (const [name, obj, parts, f] of rows) {
    const total = parts.reduce((t, [k]) => t + Number(obj[k] || 0), 0);
    svg.appendChild(el('text', { x: 0, y: y + 13, class: 'bar-name' }, name));
    if (!(total > 0)) {
      svg.appendChild(el('text', { x: 52, y: y + 13, class: 'bar-none' }, name === 'capex' ? 'not priced' : '–'));
      y += 26;
      continue;
    }
    svg.appendChild(el('text', { x: W - 2, y: y + 13, class: 'bar-total', 'text-anchor': 'end' }, f(total)));
    const w = W - 52 - 64;
    let x = 52, n = 0;
    for (const [k, label, color] of parts) {
      const v = Number(obj[k] || 0);
      if (!(v > 0)) continue;
      const bw = (v / total) * w;
      const r = el('rect', { x, y, width: Math.max(0.5, bw), height: 18, fill: color });
      r.appendChild(el('title', {}, label + ' ' + f(v)));
      svg.appendChild(r);
      x += bw;
      const t = el('text', { x: 52 + (n % perRow) * colW, y: y + 34 + Math.floor(n / perRow) * 15, class: 'bar-label' });
      t.appendChild(el('tspan', { fill: color }, '■ '));
      t.appendChild(el('tspan', {}, label + ' ' + f(v)));
      svg.appendChild(t);
      ++n;
    }
    y += 28 + Math.ceil(n / perRow) * 15;
  }
  svg.setAttribute('height', y);
  svg.setAttribute('viewBox', '0 0 ' + W + ' ' + y);
  box.replaceChildren(svg);
}

// An enum's value as the CLI prints it: its name without the type's prefix, in lower case
// (COOLING_DIRECT_LIQUID: direct_liquid).
const ENUM_PREFIXES = { 'site.cooling': 'COOLING_', 'site.provisioning.basis': 'PROVISIONING_BASIS_',
  'constraints.power_cap_at': 'POWER_CAP_AT_', 'constraints.budget_on': 'BUDGET_ON_' };
function enumWord(path, text) {
  const prefix = ENUM_PREFIXES[path];
  return prefix && text.startsWith(prefix) ? text.slice(prefix.length).toLowerCase() : text;
}

// The comparison: a table as `dcplan compare` ranks it, and the assumptions that differ.
function showComparison(c) {
  const body = $('compare-table').querySelector('tbody');
  body.textContent = '';
  (c.plans || []).forEach((p, i) => {
    const tr = document.createElement('tr');
    const cost = p.cost || {};
    for (const cell of [String(i + 1), p.name, fmt.count(p.counts.gpu_count),
      fmt.rate(p.compute.realized_flops_per_second), fmt.power(p.power.facility_power_watts),
      moneyOrNot(cost.capex_usd), moneyOrNot(cost.tco_usd), moneyOrNot(cost.usd_per_gpu_hour),
      bindingName(p.binding_constraint)]) {
      const td = document.createElement('td');
      td.textContent = cell;
      if (cell === 'not priced') td.className = 'none';
      tr.appendChild(td);
    }
    body.appendChild(tr);
  });
  const differ = $('compare-differ');
  differ.textContent = '';
  const paths = c.differing_assumptions || [];
  if (!paths.length) return;
  const h = document.createElement('p');
  h.textContent = 'not like for like: these assumptions differ (an input on the left sets one for all)';
  differ.appendChild(h);
  const table = document.createElement('table');
  table.id = 'differ-table';
  const head = document.createElement('tr');
  for (const t of ['field', ...(c.plans || []).map((p) => p.name)]) {
    const th = document.createElement('th');
    th.textContent = t;
    head.appendChild(th);
  }
  table.appendChild(head);
  for (const path of paths) {
    const tr = document.createElement('tr');
    const cells = [path];
    for (const p of c.plans || []) {
      const a = (p.assumptions || []).find((x) => x.path === path);
      cells.push(a ? (a.text_value ? enumWord(path, a.text_value) :
        String(Number(a.value || 0)) + (a.unit && a.unit !== '1' ? ' ' + a.unit : '')) : '-');
    }
    for (const t of cells) {
      const td = document.createElement('td');
      td.textContent = t;
      tr.appendChild(td);
    }
    table.appendChild(tr);
  }
  differ.appendChild(table);
}

// Realized compute (and GPUs) per compared plan as bars: each preset's name above its pair of
// bars, each value right of its bar, or inside it when the bar leaves no room on its right.
function drawCompareChart() {
  const box = $('chart');
  const plans = (state.comparison && state.comparison.plans) || [];
  const W = Math.max(120, box.clientWidth), H = Math.max(200, box.clientHeight);
  const svg = el('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, xmlns: SVG_NS });
  const title = 'realized compute and GPUs, same caps and site';
  svg.appendChild(el('text', { x: 4, y: 16, class: 'axis' }, textWidth(title, 12, 600) + 8 < W ? title : 'realized compute, GPUs'));
  const metrics = [['realized compute', (p) => Number(p.compute.realized_flops_per_second), (v) => fmt.rate(v), '#d9691f'],
    ['GPUs', (p) => Number(p.counts.gpu_count), (v) => fmt.count(v) + ' GPUs', '#1f5fa8']];
  const top = 26, left = 4, right = 4, nameH = 16;
  const groupH = (H - top - 4) / Math.max(1, plans.length);
  const barH = Math.max(14, Math.min(26, (groupH - nameH - 10) / 2));
  const span = W - left - right;
  plans.forEach((p, i) => {
    const y0 = top + i * groupH;
    svg.appendChild(el('text', { x: left, y: y0 + 12, class: 'tick compare-name' }, (i + 1) + '. ' + p.name));
    metrics.forEach(([, get, f, color], mi) => {
      const max = Math.max(1, ...plans.map(get));
      const y = y0 + nameH + mi * (barH + 3);
      const w = Math.max(1, (span * get(p)) / max);
      const label = f(get(p));
      const id = i + '-' + mi;
      svg.appendChild(el('rect', { x: left, y, width: w, height: barH, fill: color, class: 'cbar', 'data-bar': id }));
      const lw = textWidth(label, 11.5, 600);
      const textY = y + barH / 2 + 4;
      if (left + w + 6 + lw <= W - right) {
        svg.appendChild(el('text', { x: left + w + 6, y: textY, class: 'value', 'data-bar': id }, label));
      } else {
        svg.appendChild(el('text', { x: left + w - 6, y: textY, class: 'value inbar', 'text-anchor': 'end', 'data-bar': id }, label));
      }
    });
  });
  box.replaceChildren(svg);
}

const SVG_NS = 'http://www.w3.org/2000/svg';
const SERIES = [
  { key: 'peak', label: 'peak compute', panel: 0, cls: 's-peak', get: (r) => Number(r.compute.peak_flops_per_second) },
  { key: 'realized', label: 'realized compute', panel: 0, cls: 's-realized', get: (r) => Number(r.compute.realized_flops_per_second) },
  { key: 'mfu', label: 'MFU', panel: 1, cls: 's-mfu', get: (r) => Number(r.compute.mfu) },
  { key: 'it', label: 'IT power', panel: 2, cls: 's-it', get: (r) => Number(r.power.it_power_watts) },
  { key: 'facility', label: 'facility power', panel: 2, cls: 's-facility', get: (r) => Number(r.power.facility_power_watts) },
];

// The width of `text` in the page's font (the SVGs' margins are sized from their labels, so
// none is cut at the chart's edge at any width).
const measureCtx = document.createElement('canvas').getContext('2d');
function textWidth(text, px, weight) {
  measureCtx.font = (weight || 400) + ' ' + px + 'px ' + getComputedStyle(document.body).fontFamily;
  return Math.ceil(measureCtx.measureText(text).width);
}

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

// The facility power cap of the request on display, in watts (0: none, or not at the meter).
function capWatts() {
  const c = (state.request && state.request.constraints) || {};
  const at = c.power_cap_at || 'POWER_CAP_AT_FACILITY';
  return at === 'POWER_CAP_AT_FACILITY' || at === 'POWER_CAP_AT_UNSPECIFIED' ? Number(c.power_cap_watts || 0) : 0;
}

// The shaded P10-P90 band of a series at a row, [lo, hi], or null: over the Monte Carlo samples
// when the request has uncertain inputs (ScaleRow.distribution, which samples the efficiency
// model's error too); else the efficiency model's own error on MFU (ScaleRow.mfu_interval), on
// realized compute as on MFU (realized is peak x MFU, so it scales by the same factors).
const BAND_KEYS = { realized: 'realized_flops_per_second', mfu: 'mfu', it: 'it_power_watts',
  facility: 'facility_power_watts' };
function bandOf(s, r) {
  const d = r.distribution;
  if (d && Number(d.samples) > 0) {
    const p = BAND_KEYS[s.key] && d[BAND_KEYS[s.key]];
    if (!p) return null;
    const lo = Number(p.p10 || 0), hi = Number(p.p90 || 0);
    return hi > lo * (1 + 1e-9) ? [lo, hi] : null;  // a figure no sample moves has no band
  }
  const m = r.mfu_interval, mfu = Number(r.compute.mfu);
  if (!m || !(Number(m.p90) > Number(m.p10)) || !(mfu > 0)) return null;
  if (s.key === 'mfu') return [Number(m.p10), Number(m.p90)];
  if (s.key === 'realized') {
    const realized = Number(r.compute.realized_flops_per_second);
    return [(realized * Number(m.p10)) / mfu, (realized * Number(m.p90)) / mfu];
  }
  return null;
}

// What the chart's bands are, for its legend ('' when it has none).
function bandWhat(rows) {
  const sampled = rows.find((r) => r.distribution && Number(r.distribution.samples) > 0);
  if (sampled) return 'P10-P90 over ' + fmt.count(sampled.distribution.samples) + ' samples';
  return rows.some((r) => bandOf(SERIES[1], r)) ? 'MFU model error P10-P90' : '';
}

function seriesValueText(s, row) {
  const v = s.get(row);
  return s.panel === 0 ? fmt.rate(v) : s.panel === 1 ? fmt.percent(v) : fmt.power(v);
}

function drawChart() {
  if (state.mode === 'compare') return;
  // The legend first: a line more or less of it changes the room the chart has.
  const what = bandWhat(state.chartRows);
  $('band-legend').hidden = !what;
  setText('band-what', what ? 'shaded: ' + what : '');
  const box = $('chart');
  const W = Math.max(120, box.clientWidth), H = Math.max(240, box.clientHeight);
  const svg = el('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H });
  const rows = state.chartRows;
  const markerRow = state.mode === 'scale' ? state.row : state.plan;
  // Margins from the widest labels: the y ticks left of the plots (after the rotated axis titles),
  // the marker's values right of them.
  const tickW = Math.max(textWidth('100 EFLOP/s', 11), textWidth('100 MW', 11));
  let valueW = textWidth('100.0%', 11.5, 600);
  if (markerRow) {
    for (const s of SERIES) valueW = Math.max(valueW, textWidth(seriesValueText(s, markerRow), 11.5, 600));
  }
  const m = { left: 24 + tickW + 8, right: valueW + 14, top: 22, bottom: 40 };
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
  panels.forEach((p, i) => {
    const series = SERIES.filter((s) => s.panel === i);
    const values = [];
    for (const s of series) for (const r of rows) values.push(s.get(r));
    if (markerRow) for (const s of series) values.push(s.get(markerRow));
    for (const s of series) for (const r of rows) values.push(...(bandOf(s, r) || []));
    if (i === 2 && state.mode === 'fits' && capWatts() > 0) values.push(capWatts());
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
    // bands, under the lines: one shape per run of rows that have one
    for (const s of series) {
      let run = [];
      const flush = () => {
        if (run.length > 1) {
          const pts = run.map(([gx, b]) => x(gx).toFixed(1) + ' ' + y(b[1]).toFixed(1))
            .concat(run.slice().reverse().map(([gx, b]) => x(gx).toFixed(1) + ' ' + y(b[0]).toFixed(1)));
          g.appendChild(el('path', { d: 'M' + pts.join(' L') + ' Z', class: 'band ' + s.cls, 'data-series': s.key }));
        }
        run = [];
      };
      for (const r of rows) {
        const b = bandOf(s, r);
        if (b) run.push([Number(r.counts.gpu_count), b]); else flush();
      }
      flush();
    }
    // lines
    for (const s of series) {
      if (!rows.length) continue;
      const d = rows.map((r, j) => (j ? 'L' : 'M') + x(Number(r.counts.gpu_count)).toFixed(1) + ' ' + y(s.get(r)).toFixed(1)).join(' ');
      g.appendChild(el('path', { d, class: 'line ' + s.cls }));
    }
    // the power cap, in "what fits"
    if (i === 2 && state.mode === 'fits' && capWatts() > 0) {
      const cap = capWatts();
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
        const text = seriesValueText(s, markerRow);
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
  // Every decade labelled while the labels keep apart, else every other (or third...).
  const xEvery = Math.max(decades > 8 ? 2 : 1, Math.ceil((textWidth('100k', 11) + 10) / (plotW / decades)));
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

// Reading the text the sliders write (the server reads every text; this only moves sliders).
const SI = { '': 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9, B: 1e9, T: 1e12 };
function parsePower(t) {
  const m = /^\s*([0-9.]+(?:e[+-]?\d+)?)\s*(([kMGT]?)W)?\s*$/.exec(t);
  if (!m) return NaN;
  const v = Number(m[1]) * SI[m[3] || ''];
  return m[2] || v === 0 ? v : NaN;  // a bare number needs its unit (as --power does), but 0 is 0
}
function parseMoney(t) {
  const m = /^\s*\$?\s*([0-9.]+(?:e[+-]?\d+)?)\s*([kKMBT]?)\s*(USD)?\s*$/.exec(t);
  return m ? Number(m[1]) * SI[m[2]] : NaN;
}
function parsePrice(t) {
  const m = /^\s*([0-9.]+)\s*(USD\/kWh)?\s*$/.exec(t);
  return m ? Number(m[1]) : NaN;
}
function powerText(w) { return w >= 1e9 ? Number((w / 1e9).toPrecision(3)) + 'GW' : Number((w / 1e6).toPrecision(3)) + 'MW'; }
function moneyText(usd) { return usd >= 1e9 ? '$' + Number((usd / 1e9).toPrecision(3)) + 'B' : '$' + Number((usd / 1e6).toPrecision(3)) + 'M'; }

// A slider shows its text field's value, the preset's when the field is empty; a text it cannot
// show (0, nonsense) greys it out and says so, never leaving it at a value that is not in force.
function syncSlider(slider, text, value, toPos, label, presetValue, emptyLabel) {
  const s = $(slider);
  const t = text.trim();
  let v = t === '' ? presetValue : value;
  const shown = v > 0 && Number.isFinite(v);
  s.classList.toggle('unsynced', !shown);
  if (shown) s.value = toPos(v);
  setSliderLabel(slider, t === '' ? emptyLabel : shown ? label(v) : 'not shown: ' + t);
}

function presetNumber(path) {
  let o = state.preset || {};
  for (const part of path.split('.')) o = o && o[part];
  return o === undefined || o === null ? 0 : Number(o);
}

function syncSliders() {
  const pt = $('power-input').value;
  const pv = presetNumber('constraints.power_cap_watts');
  syncSlider('power-slider', pt, parsePower(pt), (v) => posFromLog(v, POWER_RANGE), fmt.power, pv,
    pv > 0 ? 'preset: ' + fmt.power(pv) : 'no power cap');
  setText('power-hint', pt.trim() === '' ? (pv > 0 ? 'empty: the preset\'s ' + fmt.power(pv) : 'empty: no power cap')
    : parsePower(pt) === 0 ? '0 is not a cap: leave it empty for none' : '');
  const bt = $('budget-input').value;
  const bv = presetNumber('constraints.budget_usd');
  syncSlider('budget-slider', bt, parseMoney(bt), (v) => posFromLog(v, BUDGET_RANGE), fmt.money, bv,
    bv > 0 ? 'preset: ' + fmt.money(bv) : 'no budget');
  const ut = $('pue-input').value;
  syncSlider('pue-slider', ut, Number(ut), (v) => v, (v) => 'PUE ' + v, presetNumber('site.pue') || 1, 'preset PUE');
  const et = $('price-input').value;
  const ev = presetNumber('costs.electricity_usd_per_kwh');
  syncSlider('price-slider', et, parsePrice(et), (v) => v, fmt.usdPerKwh, ev, 'preset: ' + fmt.usdPerKwh(ev));
}

// Empty fields show what applies instead: the preset's value.
function showPlaceholders() {
  const p = state.preset || {};
  const ph = {
    'pue-input': p.site && p.site.pue !== undefined ? 'preset: ' + p.site.pue : 'preset\'s',
    'annual-pue': p.site && p.site.annual_pue ? 'preset: ' + p.site.annual_pue : 'from cooling',
    'price-input': 'preset: ' + fmt.usdPerKwh(presetNumber('costs.electricity_usd_per_kwh')),
    'power-input': presetNumber('constraints.power_cap_watts') > 0 ? 'preset: ' + powerText(presetNumber('constraints.power_cap_watts')) : 'no cap',
    'budget-input': presetNumber('constraints.budget_usd') > 0 ? 'preset: ' + moneyText(presetNumber('constraints.budget_usd')) : 'no budget',
    'max-gpus': presetNumber('constraints.max_gpus') > 0 ? 'preset: ' + presetNumber('constraints.max_gpus') : 'no cap',
    'max-buildings': 'preset\'s', 'provisioning-margin': 'preset\'s', 'horizon': 'preset\'s',
    'wacc': 'preset\'s', 'facility-cost': 'preset\'s', 'it-life': 'preset\'s',
    'gpu-price': presetNumber('hardware.accelerator.price_usd') > 0 ? 'preset: ' + fmt.money(presetNumber('hardware.accelerator.price_usd')) : 'not priced',
    'server-price': presetNumber('hardware.server.price_usd') > 0 ? 'preset: ' + fmt.money(presetNumber('hardware.server.price_usd')) : 'not priced',
  };
  for (const id in ph) $(id).placeholder = ph[id];
}

function setMode(mode) {
  state.mode = mode;
  for (const m of ['scale', 'fits', 'compare']) document.body.classList.toggle('mode-' + m, mode === m);
  $('mode-' + mode).checked = true;
  state.chartMax = MAX_SLIDER_GPUS;
  state.chartRows = [];
  state.chartKey = '';
  setText('marker-what', mode === 'scale' ? 'slider position' : 'largest cluster that fits');
  solve();
}

async function loadPreset(name) {
  state.presetName = name;
  $('preset').value = name;
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
  showPlaceholders();
  syncSliders();
  state.chartMax = MAX_SLIDER_GPUS;
  state.chartRows = [];
  state.chartKey = '';
  await solve();
}

function download(filename, text, type) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: type || 'application/json' }));
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

async function copyText(text, area) {
  let ok = false;
  try {
    if (navigator.clipboard) {
      await navigator.clipboard.writeText(text);
      ok = true;
    }
  } catch (e) { ok = false; }
  if (!ok && area) {
    area.focus();
    area.select();
    try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
  }
  return ok;
}

async function copyRequest() {
  const area = $('request-json');
  const ok = await copyText(area.value, area);
  setText('copy-status', ok ? 'copied' : 'the clipboard is not available: the text below is selected, copy it by hand');
  setTimeout(() => setText('copy-status', ''), 4000);
}

async function copyLink() {
  saveUrl();
  const ok = await copyText(location.href, null);
  setText('copy-status', ok ? 'link copied' : 'the link is in the address bar');
  setTimeout(() => setText('copy-status', ''), 4000);
}

// The Plan on display (in "scale a cluster", the plan `dcplan fit --request` gives for the
// request shown: the preset with a GPU cap at the slider's size).
async function planOnDisplay() {
  if (state.mode === 'fits' && state.plan) return state.plan;
  const shown = JSON.parse($('request-json').value || 'null');
  if (!shown) return null;
  return api('POST', '/v1/plan', shown);
}

async function downloadPlan() {
  try {
    if (state.mode === 'compare') {
      download('comparison.json', JSON.stringify(state.comparison, null, 1) + '\n');
      return;
    }
    const plan = await planOnDisplay();
    download((state.presetName || 'plan') + '-plan.json', JSON.stringify(plan, null, 1) + '\n');
  } catch (e) {
    showError(e);
  }
}

// One CSV row with the columns of `dcplan fit --format=csv` (the server writes it from the one
// headline table, planner/sweep/headline.h).
async function downloadCsv() {
  try {
    let csv;
    if (state.mode === 'compare') {
      csv = await api('POST', '/v1/csv', { plans: (state.comparison || {}).plans || [] }, true);
    } else {
      const plan = await planOnDisplay();
      csv = await api('POST', '/v1/csv', { plans: [plan] }, true);
    }
    $('download-csv').dataset.last = csv;
    download((state.mode === 'compare' ? 'comparison' : state.presetName || 'plan') + '.csv', csv, 'text/csv');
  } catch (e) {
    showError(e);
  }
}

function chartSvgText() {
  const svg = $('chart').querySelector('svg');
  if (!svg) return '';
  const copy = svg.cloneNode(true);
  copy.setAttribute('xmlns', SVG_NS);
  // The page's stylesheet rules for the chart, inlined so the file stands alone.
  const style = document.createElementNS(SVG_NS, 'style');
  style.textContent = CHART_STYLE;
  copy.insertBefore(style, copy.firstChild);
  const bg = el('rect', { x: 0, y: 0, width: '100%', height: '100%', fill: '#ffffff' });
  copy.insertBefore(bg, style.nextSibling);
  return new XMLSerializer().serializeToString(copy);
}

function downloadSvg() {
  download('dcplan-chart.svg', chartSvgText(), 'image/svg+xml');
}

async function downloadPng() {
  const text = chartSvgText();
  const svg = $('chart').querySelector('svg');
  if (!svg) return;
  const w = Number(svg.getAttribute('width')), h = Number(svg.getAttribute('height'));
  const img = new Image();
  const url = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(text);
  await new Promise((resolve, reject) => { img.onload = resolve; img.onerror = reject; img.src = url; });
  const canvas = document.createElement('canvas');
  canvas.width = 2 * w;
  canvas.height = 2 * h;
  const ctx = canvas.getContext('2d');
  ctx.scale(2, 2);
  ctx.drawImage(img, 0, 0);
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = 'dcplan-chart.png';
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

const CHART_STYLE = `
text { font-family: system-ui, "DejaVu Sans", Arial, sans-serif; }
.frame { fill: #fbfbfa; stroke: #d9dde1; } .grid { stroke: #e7e9ec; stroke-width: 1; }
.tick { font-size: 11px; fill: #5e6873; } .axis { font-size: 12px; fill: #1d2329; font-weight: 600; }
.line { fill: none; stroke-width: 2.2; } .value { font-size: 11.5px; font-weight: 600; }
.marker { stroke: #20303f; stroke-width: 1.2; stroke-dasharray: 4 3; }
.marker-label { font-size: 12px; font-weight: 700; fill: #20303f; } .dot { stroke: #fff; stroke-width: 1.5; }
.cap { stroke: #20303f; stroke-width: 1.2; stroke-dasharray: 2 3; } .cap-label { font-size: 11px; fill: #20303f; }
.s-peak { stroke: #1f5fa8; fill: #1f5fa8; } .s-realized { stroke: #d9691f; fill: #d9691f; }
.s-mfu { stroke: #2e8b57; fill: #2e8b57; } .s-it { stroke: #7b4bb3; fill: #7b4bb3; stroke-dasharray: 6 3; }
.s-facility { stroke: #c0392b; fill: #c0392b; } path.line { fill: none; } text.value, text.s-it { stroke: none; }
.cbar { stroke: none; } path.band { fill-opacity: 0.18; stroke: none; }`;

function onInput() { syncSliders(); solve(); }

function bindAll() {
  $('gpus-slider').addEventListener('input', () => { syncGpus(true); solve(); });
  $('gpus-input').addEventListener('input', () => { syncGpus(false); solve(); });
  $('power-slider').addEventListener('input', () => {
    $('power-input').value = powerText(logFromPos($('power-slider').value, POWER_RANGE));
    onInput();
  });
  $('budget-slider').addEventListener('input', () => {
    $('budget-input').value = moneyText(logFromPos($('budget-slider').value, BUDGET_RANGE));
    onInput();
  });
  $('pue-slider').addEventListener('input', () => { $('pue-input').value = $('pue-slider').value; onInput(); });
  $('price-slider').addEventListener('input', () => {
    $('price-input').value = Number($('price-slider').value) + ' USD/kWh';
    onInput();
  });
  for (const [, id] of FLAGS) {
    const e = $(id);
    e.addEventListener(e.tagName === 'SELECT' ? 'change' : 'input', onInput);
  }
  $('set-lines').addEventListener('input', onInput);
  $('edit-lines').addEventListener('input', onInput);
  $('uncertain-lines').addEventListener('input', onInput);
  $('sensitivity').addEventListener('change', onInput);
  for (let i = 1; i <= 4; ++i) $('compare-' + i).addEventListener('change', onInput);
  $('preset').addEventListener('change', (e) => loadPreset(e.target.value));
  $('mode-scale').addEventListener('change', () => setMode('scale'));
  $('mode-fits').addEventListener('change', () => setMode('fits'));
  $('mode-compare').addEventListener('change', () => setMode('compare'));
  $('copy-request').addEventListener('click', copyRequest);
  $('copy-link').addEventListener('click', copyLink);
  $('download-plan').addEventListener('click', downloadPlan);
  $('download-csv').addEventListener('click', downloadCsv);
  $('download-svg').addEventListener('click', downloadSvg);
  $('download-png').addEventListener('click', downloadPng);
  let resizeTimer = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => (state.mode === 'compare' ? drawCompareChart() : drawChart()), 50);
  });
}

// The page's state from its URL: the CLI's flags by name (see stateUrl).
function readUrl(params) {
  const has = [...params.keys()].length > 0;
  const mode = params.has('compare') ? 'compare' : params.has('gpus') || !has ? 'scale' : 'fits';
  for (const [flag, id] of FLAGS) {
    if (!params.has(flag)) continue;
    const e = $(id), v = params.get(flag);
    // A select takes any value the CLI takes ("liquid" for direct_liquid, "IT"): an option is added.
    if (e.tagName === 'SELECT' && ![...e.options].some((o) => o.value === v)) {
      const o = document.createElement('option');
      o.value = v;
      o.textContent = v;
      e.appendChild(o);
    }
    e.value = v;
  }
  $('set-lines').value = params.getAll('set').join('\n');
  $('edit-lines').value = params.getAll('edit').join('\n');
  $('uncertain-lines').value = params.getAll('uncertain').join('\n');
  $('sensitivity').checked = params.get('sensitivity') === 'true';
  if (params.has('gpus') && mode === 'scale') state.gpus = params.get('gpus');
  const names = (params.get('compare') || '').split(',').filter((n) => n);
  for (let i = 1; i <= 4; ++i) $('compare-' + i).value = names[i - 1] || '';
  // `dcplan fit`'s default preset is h100-dgx; the chapter's widget opens on the seed.
  const preset = params.get('preset') || names[0] || (mode === 'scale' ? 'seed' : 'h100-dgx');
  return { mode, preset };
}

async function main() {
  bindAll();
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
  for (let i = 1; i <= 4; ++i) {
    const c = $('compare-' + i);
    const none = document.createElement('option');
    none.value = '';
    none.textContent = i <= 2 ? 'pick a preset' : '(none)';
    c.appendChild(none);
    for (const p of state.presets) {
      const o = document.createElement('option');
      o.value = p.name;
      o.textContent = p.name;
      c.appendChild(o);
    }
  }
  const { mode, preset } = readUrl(new URLSearchParams(location.search));
  $('gpus-input').value = state.gpus;
  syncGpus(false);
  state.mode = mode;
  for (const m of ['scale', 'fits', 'compare']) document.body.classList.toggle('mode-' + m, mode === m);
  $('mode-' + mode).checked = true;
  setText('marker-what', mode === 'scale' ? 'slider position' : 'largest cluster that fits');
  const known = state.presets.some((p) => p.name === preset);
  if (!known) showError({ error: 'unknown preset "' + preset + '" in the link' });
  await loadPreset(known ? preset : 'seed');
  document.body.dataset.ready = 'true';
}

main();
