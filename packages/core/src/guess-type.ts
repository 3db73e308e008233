/**
 * The attribute type a column's cells look like, as a data source's sample and preview guess
 * it (GET dss/{ds}/sample, POST dss/sample/preview): shared by the projects service (samples, data-source learns and predicts
 * without types) and the clients (the SDK's CSV helpers, the CLI's optional `--types`), so a
 * frame built on the client is typed as the server would type the same file. Pure.
 */

/** Cells that count as missing: they do not decide the type. */
const MISSING = /^(na|nan|null|\?)$/i;

/** Guessed attribute type of sample cells: C numbers, B 0/1, T anything else (missing cells ignored; none left: C). */
export function guessType(cells: readonly string[]): string {
  const present = cells.map((c) => c.trim()).filter((c) => c !== '' && !MISSING.test(c));
  if (present.length === 0) return 'C';
  if (present.every((c) => c === '0' || c === '1')) return 'B';
  if (present.every((c) => Number.isFinite(Number(c)))) return 'C';
  return 'T';
}
