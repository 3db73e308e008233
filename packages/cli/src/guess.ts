/**
 * The one seam to the type guesser of a data source's sample and preview (API.md §5), so that
 * `sml projects learn` without `--types` types a file as the server would type the same file:
 * C numbers, B 0/1, T anything else; missing cells (empty, NA, NaN, null, ?) do not decide;
 * none left: C. The guesser is moving from services/projects to @sml/core (`guessType`); until
 * that lands this holds the same rule, and then its body becomes a call of the shared one.
 */
export function guessType(cells: readonly string[]): string {
  const present = cells.map((c) => c.trim()).filter((c) => c !== '' && !/^(na|nan|null|\?)$/i.test(c));
  if (present.length === 0) return 'C';
  if (present.every((c) => c === '0' || c === '1')) return 'B';
  if (present.every((c) => Number.isFinite(Number(c)))) return 'C';
  return 'T';
}
