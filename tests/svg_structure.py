#!/usr/bin/env python3
"""The structure of a `dcplan sweep --format=svg` chart, checked from its elements.

Usage: svg_structure.py FILE.svg X_TITLE X_LO X_HI SCALE LEGEND...

  X_TITLE  the x-axis title every panel must carry, exactly;
  X_LO, X_HI  the x axis's ends in the title's unit (the plot's left and right edges; a log axis
              extends the varied range to whole decades);
  SCALE    log or linear: how tick values map to x;
  LEGEND   the legend entries every panel must list, in order (none: a single unnamed series).

Checked in every panel (a <g> holding a clipPath rect, the plot): the x-axis title; every tick
label under the plot is a number in the title's unit (with K/M for thousands/millions) placed where
the scale puts that value (within 1 px), and there are at least 3; one series (a path with a stroke,
no fill) per legend entry, or exactly one without a legend; the legend's swatches (a line right of
the plot, then its text) name the entries in order, each in the colour of the series drawn in that
order, the colours distinct; a dashed legend swatch (a marker such as "budget binds from ...")
matches a dashed line of its colour in the plot. Prints PASS/FAIL lines; exits 1 on any failure.
"""
import math
import sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'
FAILED = []


def check(name, ok, detail=''):
    print(('PASS ' if ok else 'FAIL ') + name + ('' if ok else ': ' + detail))
    if not ok:
        FAILED.append(name)


def tick_value(text):
    scale = {'K': 1e3, 'M': 1e6, 'B': 1e9}
    t = text.strip()
    if t and t[-1] in scale:
        return float(t[:-1]) * scale[t[-1]]
    return float(t)


def main():
    path, x_title, lo, hi, scale = sys.argv[1:6]
    legend = sys.argv[6:]
    lo, hi = float(lo), float(hi)
    root = ET.parse(path).getroot()
    panels = [g for g in root.findall(NS + 'g') if g.find(NS + 'clipPath/' + NS + 'rect') is not None]
    check('%s: three panels' % path, len(panels) == 3, str(len(panels)))
    for n, g in enumerate(panels):
        name = '%s panel %d' % (path, n + 1)
        r = g.find(NS + 'clipPath/' + NS + 'rect')
        left, top = float(r.get('x')), float(r.get('y'))
        right, bottom = left + float(r.get('width')), top + float(r.get('height'))
        texts = [t for t in g.iter(NS + 'text')]
        check(name + ': x-axis title "%s"' % x_title, any(t.text == x_title for t in texts),
              repr([t.text for t in texts if t.get('text-anchor') == 'middle' and float(t.get('y')) > bottom + 20]))
        # Tick labels: centred, just under the plot.
        ticks = [t for t in texts if t.get('text-anchor') == 'middle' and bottom < float(t.get('y')) < bottom + 20]
        bad = []
        for t in ticks:
            try:
                v = tick_value(t.text)
            except ValueError:
                bad.append(t.text)
                continue
            f = ((math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) if scale == 'log'
                 else (v - lo) / (hi - lo))
            if abs(float(t.get('x')) - (left + f * (right - left))) > 1:
                bad.append('%s at x %s' % (t.text, t.get('x')))
        check(name + ': %d x ticks, each a value in the axis unit where the %s scale puts it' % (len(ticks), scale),
              len(ticks) >= 3 and not bad, repr(bad))
        series = [p.get('stroke') for p in g.iter(NS + 'path') if p.get('fill') == 'none' and p.get('stroke')]
        kids = list(g)
        swatches = []
        for i, k in enumerate(kids):
            if k.tag == NS + 'line' and float(k.get('x1')) > right:
                label = next((x for x in kids[i + 1:i + 4] if x.tag == NS + 'text'), None)
                if label is None or float(label.get('x')) <= right:
                    continue
                if k.get('stroke-dasharray'):  # a marker's entry: a dashed line of its colour in the plot
                    marked = any(m.get('stroke') == k.get('stroke') and m.get('stroke-dasharray') and
                                 left <= float(m.get('x1')) <= right for m in g.iter(NS + 'line'))
                    check(name + ': the legend\'s "%s" marks a dashed line in the plot' % label.text, marked)
                else:
                    swatches.append((label.text, k.get('stroke')))
        if legend:
            check(name + ': one series per legend entry (%d)' % len(legend), len(series) == len(legend),
                  repr(series))
            check(name + ': the legend names %s in the series\' colours' % ', '.join(legend),
                  [s[0] for s in swatches] == legend and [s[1] for s in swatches] == series and
                  len(set(series)) == len(series), '%r vs series %r' % (swatches, series))
        else:
            check(name + ': one series, no legend', len(series) == 1 and not swatches, '%r %r' % (series, swatches))
    return 1 if FAILED else 0


if __name__ == '__main__':
    sys.exit(main())
