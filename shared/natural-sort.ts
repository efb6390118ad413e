/**
 * The one order of names people see: ls, tree, the Explorer, the DAG view, exports. Digit runs
 * compare as numbers (2.4.0.txt before 2.39.5.txt, file9 before file10) and letters
 * alphabetically (a, B, c). The locale is fixed, so the engine, the CLI and the app (whatever
 * language it shows) give the same order; names the collator finds equal ("01" and "1", NFC and
 * NFD forms) fall back to code units, so the order is total and never depends on input order.
 *
 * A file's extension is set aside first, so a version's notes come before its point release's
 * (1.7.12.txt before 1.7.12.1.txt: as whole names "." would be set against "t"); a folder named
 * 2.39.5 keeps its last number, since an extension starts with a letter.
 *
 * Not for hashes or anything stored: those keep code-unit order, which never changes with ICU.
 *
 * @example
 * ['2.39.5.txt', '2.4.0.txt', '1.5.0.1.txt'].sort(compareNatural); // ['1.5.0.1.txt', '2.4.0.txt', '2.39.5.txt']
 */
const collator = new Intl.Collator('en', { numeric: true });

/** A name without its extension (`.txt`, `.md`, `.tar`…, not `.5`); a dotfile keeps its name. */
function stem(name: string): string {
  const dot = name.search(/\.[A-Za-z][A-Za-z0-9]*$/);
  return dot > 0 ? name.slice(0, dot) : name;
}

export function compareNatural(a: string, b: string): number {
  return collator.compare(stem(a), stem(b)) || collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}
