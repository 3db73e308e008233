/** A cell as text: nothing for null/undefined, compact JSON for arrays and objects. */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects took the JSON branch
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Left-aligned columns two spaces apart, header first: readable in a terminal, easy to grep or cut. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => rows.reduce((w, row) => Math.max(w, (row[i] ?? '').length), h.length));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
  return [headers, ...rows].map(line).join('\n');
}

/** One record as FIELD / VALUE rows. */
export function fields(record: Record<string, unknown>): string {
  return keyValues(record, ['FIELD', 'VALUE']);
}

/** A computed number without floating-point noise (0.30000000000000004 → 0.3); NaN stays NaN. */
export function decimal(n: number): string {
  return String(Number(n.toPrecision(12)));
}

/** Key / value rows of one result map, in the server's order. */
export function keyValues(map: Record<string, unknown>, headers: [string, string] = ['KEY', 'VALUE']): string {
  return table(headers, Object.entries(map).map(([k, v]) => [k, cell(v)]));
}
