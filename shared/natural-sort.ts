/**
 * The one order of names people see: ls, tree, the Explorer, the DAG view, exports. Digit runs
 * compare as numbers (2.4.0.txt before 2.39.5.txt, file9 before file10) and letters
 * alphabetically (a, B, c). The locale is fixed, so the engine, the CLI and the app (whatever
 * language it shows) give the same order; names the collator finds equal ("01" and "1", NFC and
 * NFD forms) fall back to code units, so the order is total and never depends on input order.
 *
 * Not for hashes or anything stored: those keep code-unit order, which never changes with ICU.
 *
 * @example
 * ['2.39.5.txt', '2.4.0.txt', '1.5.0.1.txt'].sort(compareNatural); // ['1.5.0.1.txt', '2.4.0.txt', '2.39.5.txt']
 */
const collator = new Intl.Collator('en', { numeric: true });

export function compareNatural(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}
