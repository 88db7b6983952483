// One table for every measurement: text for the terminal, Markdown for docs/benchmarks.md.

const fmt = (value, unit) => {
  if (!Number.isFinite(value)) return 'n/a';
  if (unit === 'µs/msg' || unit === 'µs/call' || unit === 'ms')
    return value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0);
  return value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(1);
};
const fmtRatio = (r) => `${r.median.toFixed(2)}x ${r.vs} [${r.min.toFixed(2)}-${r.max.toFixed(2)}]`;

/** Rows of cells: section, case, contender, median, min-max, unit, ratios, target. */
function cells(rows, { smoke }) {
  return rows.map((row) => {
    const value = row.value;
    const range = value ? `${fmt(value.min, row.unit)}-${fmt(value.max, row.unit)}` : '';
    const targets = (row.targets ?? [])
      .map((t) => `${t.text}: ${t.pending ? 'PENDING' : smoke ? 'not enforced' : t.met ? 'met' : 'MISSED'}`)
      .join('; ');
    return [
      row.section,
      row.case,
      row.contender,
      value ? fmt(value.median, row.unit) : (row.note ?? 'pending'),
      range,
      row.unit ?? '',
      (row.ratios ?? []).map(fmtRatio).join('; '),
      targets,
    ];
  });
}

const HEAD = ['measurement', 'case', 'contender', 'median', 'min-max', 'unit', 'ratio (median [min-max])', 'target'];

export function textTable(rows, options) {
  const body = cells(rows, options);
  const widths = HEAD.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (r) =>
    r
      .map((c, i) => (i >= 3 && i <= 4 ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const out = [line(HEAD), widths.map((w) => '-'.repeat(w)).join('  ')];
  let last;
  for (const [i, r] of body.entries()) {
    if (last !== undefined && rows[i].section !== last) out.push('');
    last = rows[i].section;
    out.push(line(r));
  }
  return out.join('\n');
}

export function markdownTable(rows, options) {
  const escapeCell = (c) => c.replaceAll('|', '\\|');
  const out = [`| ${HEAD.join(' | ')} |`, `|${HEAD.map((_, i) => (i >= 3 && i <= 4 ? '---:' : '---')).join('|')}|`];
  for (const r of cells(rows, options)) out.push(`| ${r.map(escapeCell).join(' | ')} |`);
  return out.join('\n');
}
