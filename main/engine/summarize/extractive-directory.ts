/**
 * A directory's L0 and L1 from its children's L0s, offline: what the folder is for, in one
 * sentence, and an overview a reader can scan.
 *
 * The L0 comes from, in order: the first part of a document split into parts; the folder's
 * README or index page; a family of similar titles ("Git v1.5.0 Release Notes", ...) with its
 * range ("Git Release Notes, 1.5.0 to 2.39.5"); else the subject the children share, with the
 * titles of the first of them. The L1 is that sentence, then each child with its own L0, a
 * family of many as one line with its range, legal and history files last; a list that does not
 * fit names a family of names (git-add.txt, git-am.txt, …) on one line of those names.
 *
 * @example
 * summarizeDirectory([{ name: 'README.md', abstract: 'Tidewater — A weather-station network.', category: 'resource', isDirectory: false }], { dirName: 'sample' });
 */
import { compareNatural } from '../../../shared/natural-sort.js';
import { isLegalOrHistoryName } from './boilerplate.js';
import { fit, LEAD_SEPARATOR, MAX_ABSTRACT_CHARS, MAX_OVERVIEW_CHARS, summarizeText, type ExtractiveSummary } from './extractive.js';
import { CONTENTS } from './extractive-structure.js';
import { definedNames, DOCUMENT_NAME, isSplitDocument, PART_NAME, sharedTopics, subtreeCovers, withoutPartsLine } from './extractive-directory-terms.js';
import { afterListLabel, LABELS, charLength, detectLanguage, isLabelWord, joinList, tokenize, truncate, type ContentLanguage } from './extractive-text.js';

export interface DirectoryChild {
  name: string;
  abstract: string;
  category: string;
  isDirectory: boolean;
  /** A sub-folder's own L1, when the caller has it: the source of its distinctive terms. */
  overview?: string;
  /** A file's key terms (the last line of its L1), when the caller has them: what its body is about, beyond its lead. */
  keyTerms?: string[];
  /** A folder that is a document the ingest split into parts (its meta's `document`), when the caller knows. */
  document?: boolean;
}

export interface SummarizeDirectoryOptions {
  dirName: string;
  /** The folder's path from the root, its own name last: a folder of test data is named for the package whose tests read it. */
  path?: string[];
  language?: ContentLanguage;
  maxAbstractChars?: number;
  maxOverviewChars?: number;
}

/** Names of a folder's own introduction, best first. */
const INTRO_NAMES = [/^readme(\.(md|markdown|txt|rst|adoc|html?))?\/?$/i, /^index(\.[a-z-]+)*\.(html?|md|rst|adoc|txt)\/?$/i, /^(overview|intro|introduction|about|_index)(\.[a-z0-9]+)?\/?$/i];
const MAX_CHILD_LINE_CHARS = 160;
/**
 * A document's line in a folder whose list does not fit its L1, or that opens sub-folders: its
 * title and the start of its lead, so the L1 names more of what lies below it, in its documents' words.
 */
const SHORT_LINE_CHARS = 60;
/** A sub-folder's own child line, shown under it in its parent's L1. */
const MAX_NESTED_LINE_CHARS = 110;
/** A name family (children named git-*, CMAKE_*) listed as one line of names, from this many members. */
const NAME_FAMILY_MIN = 8;
/**
 * A name family's line ("- **git-…** (160): add, am, …") or a line of titles ("- **Documents**
 * (54): …"), and its room when shown under its folder in the parent's L1: each entry names a page.
 */
const NAMES_LINE = /^- \*\*[^*\n]+\*\* \(\d+\)/;
const MAX_NESTED_FAMILY_CHARS = 220;
/** The share of what is left of the L1 that the name families' lines may take, and each line's least room. */
const NAME_FAMILY_SHARE = 0.5;
const NAME_FAMILY_MIN_CHARS = 200;
/** The share of what is left after the name families that a wide folder's line of its documents' titles may take. */
const TITLES_SHARE = 0.9;
/** A document's title on that line is cut here. */
const MAX_TITLE_CHARS = 60;
/** The share of a folder's L1 kept to open its sub-folders when its own list does not fit. */
const NESTED_SHARE = 0.3;
/** A child's lead standing for it in the folder's L0 is cut here, so the L0 names several. */
const MAX_EXAMPLE_CHARS = 80;
/** A folder with more children than this lists families of similar titles as one line each. */
const GROUP_FROM = 12;
const MIN_FAMILY = 3;

export interface Described {
  child: DirectoryChild;
  /** The title part of the child's L0 ("Title — lead"), if it has one. */
  title?: string;
  lead: string;
}

export function summarizeDirectory(children: DirectoryChild[], options: SummarizeDirectoryOptions): ExtractiveSummary {
  const maxAbstract = options.maxAbstractChars ?? MAX_ABSTRACT_CHARS;
  const maxOverview = options.maxOverviewChars ?? MAX_OVERVIEW_CHARS;
  const language = options.language ?? detectLanguage(children.map((c) => c.abstract).join('\n') || options.dirName);
  const sorted = [...children].sort((a, b) => Number(b.isDirectory) - Number(a.isDirectory) || compareNatural(a.name, b.name));
  const described = sorted.map((child) => describe(child, language));
  // Licences and changelogs are in most folders and say nothing about what the folder is for.
  const content = described.filter((d) => !isLegalOrHistoryName(d.child.name) && d.child.abstract.trim().length > 0);

  const families = findFamilies(content);
  const topics = sharedTopics(content, language);
  // A folder of test inputs is what it is for, whatever its inputs say (a test file's package doc, a config snippet).
  const testData = testDataOf(options.path ?? [options.dirName]);
  const abstract = truncate(
    testData && !pickReadme(content, language) ? testDataAbstract(sorted, testData, language, maxAbstract) : directoryAbstract(sorted, content, families, topics, language, maxAbstract),
    maxAbstract,
  );
  // An L0 made of the children's titles is not repeated above the list of those children.
  const synthesized = abstract.length > 0 && content.length > 1 && !sayingOfOwn(sorted, content, families, language);
  // Key terms over the children's L0s (each a paragraph of one document): the words a search for the folder would use.
  // (The summarizer's own words are no key terms: a skeleton's "C file: 2 structs", a label's
  // "Definitions:", an L0 that is only the file's name. A code file gives its doc and its names.)
  const wordsOf = (d: Described) =>
    SKELETON_ABSTRACT.test(d.child.abstract.trim()) ? [d.lead, ...definedNames(d.child.abstract)].filter(Boolean).join(', ') : d.title === undefined ? d.lead : d.child.abstract.trim();
  const corpus = content.map(wordsOf).filter(Boolean).join('\n\n');
  const keyTerms = corpus ? summarizeText(corpus, { format: 'text', language }).keyTerms.filter((term) => !isLabelWord(term)) : [];
  const covers = subtreeCovers(content, language);
  const overview = fit(directoryOverview(options.dirName, synthesized ? '' : abstract, described, families, keyTerms, covers, language, maxOverview), maxOverview);
  return { abstract, overview, keyTerms, language };
}

/** A folder of test inputs and expected outputs: Go's testdata/ (the go tool ignores it), test_data/. */
const TEST_DATA_NAME = /^(?:testdata|test[-_]data)$/i;

/**
 * When a folder is a folder of test data or lies in one: the package whose tests read it
 * (`printer` for go/printer/testdata/), and the folder's path inside the test data.
 */
function testDataOf(path: string[]): { pkg?: string; inside: string[] } | undefined {
  const names = path.map((p) => p.replace(/\/$/, ''));
  const at = names.findIndex((n) => TEST_DATA_NAME.test(n));
  // (A file there that the ingest split into parts, comments.golden/, is a document, not a folder of cases.)
  if (at < 0 || names.slice(at + 1).some((n) => /\.[A-Za-z][\w-]*$/.test(n))) return undefined;
  return { ...(at > 0 ? { pkg: names[at - 1] as string } : {}), inside: names.slice(at + 1) };
}

/**
 * "Test data for the tests of printer (.golden, .input files): alignment, comments, …": what a
 * reader is told of a package's testdata/ (and of the folders in it), the cases it holds by name
 * (comments.input and comments.golden are one case), not the words of its inputs.
 */
function testDataAbstract(sorted: DirectoryChild[], of: { pkg?: string; inside: string[] }, language: ContentLanguage, max: number): string {
  const zh = language === 'zh' || language === 'ja';
  const name = (c: DirectoryChild) => c.name.replace(/\/$/, '');
  // (A file the ingest split into parts is a folder named as the file: comments.golden/.)
  const extension = (c: DirectoryChild) => /(\.[A-Za-z][\w-]*)$/.exec(name(c))?.[1] ?? '';
  const cases = [...new Set(sorted.map((c) => name(c).slice(0, name(c).length - extension(c).length)))];
  const kinds = [...new Set(sorted.map(extension).filter(Boolean))].sort(compareNatural);
  const files = kinds.length > 0 && kinds.length <= 4 ? (zh ? `（${kinds.join('、')} 文件）` : ` (${kinds.join(', ')} files)`) : '';
  const where = of.inside.length > 0 ? `${zh ? '' : ', '}${of.inside.join('/')}` : '';
  const label = zh ? `${of.pkg ? `${of.pkg} 的` : ''}测试数据${where}${files}` : `Test data for the tests of ${of.pkg ?? 'this package'}${where}${files}`;
  return fitList('', label, cases, language, max) || `${label}${end(language)}`;
}

/** Whether the folder's L0 is a text of its own (a split document's first part, its README, a family's range), not a list of titles. */
function sayingOfOwn(sorted: DirectoryChild[], content: Described[], families: Family[], language: ContentLanguage): boolean {
  if (sorted.length > 1 && sorted.every((c) => PART_NAME.test(c.name))) return true;
  if (pickIntro(content, language)) return true;
  const family = families[0];
  return family !== undefined && family.members.length * 2 >= content.length;
}

function directoryAbstract(sorted: DirectoryChild[], content: Described[], families: Family[], topics: string[], language: ContentLanguage, max: number): string {
  if (content.length === 0) return '';
  // A document split into parts: its first part opens it.
  // (A part with sub-sections of its own is a folder of parts itself.)
  // A folder's L0 is never word for word a child's: the index would hold two equal records, tied in every search.
  if (sorted.length > 1 && sorted.every((c) => PART_NAME.test(c.name))) {
    const parts = [...sorted].sort((a, b) => compareNatural(a.name, b.name)).map((c) => describe(c, language));
    const first = parts[0] as Described;
    // The first part, then the titles of the others: what the document holds.
    // (A part that is the document's contents list is navigation, not a part to name.)
    const rest = parts.slice(1).flatMap((p) => (p.title && p.title !== p.child.name && !PART_NAME.test(p.title) && !CONTENTS.test(p.title) ? [p.title] : []));
    const opening = first.child.abstract.trim();
    // (A first part that is a title and a name line, "BASH — bash - GNU Bourne-Again SHell", ends its sentence before the parts.)
    const ended = /[.!?。！？…:：]$/.test(opening) ? opening : `${opening}${end(language)}`;
    if (opening) return rest.length > 0 ? `${ended}${LABELS[language].sentenceJoiner}${partsLine(rest, language)}` : opening;
  }
  const readme = pickIntro(content, language);
  const intro = readme ?? (content.length === 1 ? content[0] : undefined);
  // A README's lead says what the folder is for; its title is the README's. An only document is
  // what the folder holds: its title, then its lead ("Storm review, 8 May 2024: The storm reached…").
  if (intro && isPackageDoc(intro)) return packageAbstract(intro, sorted, content, language, max);
  if (intro && !readme && intro.title && intro.lead) return `${intro.title}${LABELS[language].colon}${intro.lead}`;
  if (intro) return intro.title && intro.lead ? intro.lead : intro.child.abstract.trim();
  // A folder of code packages (Go's src/encoding: ascii85/, asn1/, …, each "Package x …") names them.
  const folders = content.filter((d) => d.child.isDirectory && d.child.name.replace(/\/$/, '') !== 'testdata');
  // (A folder of packages itself, "Packages: ast, build", counts as one.)
  const packages = folders.filter((d) => GO_PACKAGE_DOC.test(d.lead.trim()) || d.child.abstract.startsWith(`${LABELS[language].packages}${LABELS[language].colon}`));
  if (packages.length >= 2 && packages.length * 2 >= folders.length) {
    const names = packages.map((d) => d.child.name.replace(/\/$/, ''));
    return fitList('', LABELS[language].packages, names, language, max);
  }
  const family = families[0];
  if (family && family.members.length * 2 >= content.length) {
    const rest = content.filter((d) => !family.members.includes(d));
    const also = rest.length > 0 ? `${LABELS[language].sentenceJoiner}${alsoLine(rest, language)}` : '';
    return `${familyLine(family, language)}${end(language)}${also}`;
  }
  // The subject, then as many of the children's titles as fit: a reader sees what is inside.
  // An index page whose lead says nothing of its own ("This guide was made using the following
  // documents:") still names the folder by its title ("Guide for Debian Maintainers").
  const zh = language === 'zh' || language === 'ja';
  const index = introTitled(content);
  // (A folder that holds mostly source files is code, not documents, "Code: engine.pl, parse.pl";
  // one of mostly sub-folders names them as folders.)
  const most = (test: (d: Described) => boolean) => content.filter(test).length * 2 > content.length;
  // (Japanese shares the Chinese sentence, "关于…的文档", so its words too.)
  const kindLabels = LABELS[zh ? 'zh' : language];
  const kind = most((d) => d.child.isDirectory && !isSplitDocument(d.child)) ? kindLabels.folders : most((d) => !d.child.isDirectory && d.child.category === 'code') ? kindLabels.code : kindLabels.documents;
  const subject = index?.title ?? (topics.length === 0 ? kind : zh ? `关于${joinList(topics.slice(0, 3), 'zh')}的${kind}` : capitalize(joinList(topics.slice(0, 3), 'en')));
  const listed = content.filter((d) => d !== index);
  // (An index's HTML and text copies, INDEX.html and INDEX.txt, are one name.)
  const names = [...new Set(listed.map((d) => exampleName(d)))];
  // Leads are clauses with commas of their own: they are set apart by semicolons.
  const clauses = listed.some((d) => exampleName(d) !== exampleTitle(d));
  const sentence = (n: number) => {
    const shown = names.slice(0, n);
    const more = names.length > n;
    if (zh) return `${subject}：${shown.join(clauses ? '；' : '、')}${more ? '等' : ''}。`;
    if (clauses) return `${subject}: ${shown.join('; ')}${more ? '; and others' : ''}.`;
    return `${subject}: ${joinList(more ? [...shown, 'others'] : shown, 'en')}.`;
  };
  let count = Math.min(names.length, 3);
  while (count < names.length && charLength(sentence(count + 1)) <= max) count += 1;
  return sentence(count);
}

function directoryOverview(
  dirName: string,
  abstract: string,
  described: Described[],
  families: Family[],
  keyTerms: string[],
  covers: string[],
  language: ContentLanguage,
  max: number,
): string {
  const labels = LABELS[language];
  const head = [`# ${dirName}`];
  if (abstract) head.push(abstract);
  // Right under the lead, so a long list of children never pushes it out of the budget.
  if (covers.length > 0) head.push(`**${labels.covers}${labels.colon.trim()}** ${covers.join(labels.listSeparator)}`);
  const keyLine = keyTerms.length > 0 ? `**${labels.keyTerms}${labels.colon.trim()}** ${keyTerms.join(labels.listSeparator)}` : '';
  // Large folders: each family of similar titles is one line with its range.
  const grouped = described.length > GROUP_FROM ? families : [];
  const inFamily = new Set(grouped.flatMap((f) => f.members));
  // A document split into parts is a folder on disk but a document to a reader: listed with
  // the files, after the real sub-folders, which a wide folder would otherwise push out.
  const folders = described.filter((d) => d.child.isDirectory && !inFamily.has(d) && !isSplitDocument(d.child));
  const files = described.filter((d) => (!d.child.isDirectory || isSplitDocument(d.child)) && !inFamily.has(d) && !isLegalOrHistoryName(d.child.name));
  const legal = described.filter((d) => !d.child.isDirectory && !inFamily.has(d) && isLegalOrHistoryName(d.child.name));
  const familyLines = grouped.map((f) => `- ${familyLine(f, language, true)}`);
  // Files of several categories (memories: preference, event, ...) are listed by category; a
  // folder of documents and sub-folders is listed as folders, then files.
  const fileCategories = new Set(described.filter((d) => !d.child.isDirectory).map((d) => d.child.category));
  const categories = fileCategories.size > 1 ? [...new Set(described.map((d) => d.child.category))] : [];
  const sections: { heading: string; lines: string[]; items: Described[] }[] =
    categories.length > 1
      ? categories.map((category, i) => ({ heading: category, lines: i === 0 ? familyLines : [], items: [...folders, ...files, ...legal].filter((d) => d.child.category === category) }))
      : [
          { heading: labels.folders, lines: [], items: folders },
          { heading: labels.files, lines: familyLines, items: [...files, ...legal] },
        ];
  let budget = max - [...head, keyLine].join('\n\n').length - 60;
  // A folder whose list does not fit keeps a share of its budget to open its real sub-folders
  // (below): their contents say more about it than the last of its hundreds of pages.
  const opens = (d: Described) => d.child.isDirectory && !isSplitDocument(d.child) && Boolean(d.child.overview) && !isLegalOrHistoryName(d.child.name);
  const listed = sections.reduce((n, section) => n + section.lines.reduce((m, l) => m + charLength(l) + 1, 0) + section.items.reduce((m, d) => m + charLength(childLine(d, language)) + 1, 0), 0);
  // Short lines (a title and the start of its lead) when the list does not fit, or when there are
  // sub-folders to open below: what they hold says more than the end of each child's sentence.
  const crowded = listed > budget;
  const short = crowded || described.some((d) => d.child.isDirectory && Boolean(d.child.overview) && !isLegalOrHistoryName(d.child.name));
  const reserve = crowded && described.some(opens) ? Math.floor(budget * NESTED_SHARE) : 0;
  budget -= reserve;
  // A list that does not fit names the documents of a name family (git-add.txt, git-am.txt, …)
  // on one line of their names, so every one of them is named, not only the first in name order.
  if (crowded) {
    const files = sections.find((section) => section.heading === labels.files) ?? sections[sections.length - 1];
    const named = files ? nameFamilies(files.items) : [];
    if (files && named.length > 0) {
      // Each line's room in proportion to its family's size.
      const members = new Set(named.flatMap((f) => f.members));
      const room = (f: { members: Described[] }) => Math.max(NAME_FAMILY_MIN_CHARS, Math.floor((budget * NAME_FAMILY_SHARE * f.members.length) / members.size));
      files.lines.push(...named.map((f) => truncate(`- **${f.prefix}…** (${f.members.length})${labels.colon}${f.members.map((d) => nameStem(d.child.name).slice(f.prefix.length)).sort(compareNatural).join(labels.listSeparator)}`, room(f))));
      files.items = files.items.filter((d) => !members.has(d));
    }
    // What is left is listed documents first (a title and a lead: "gittutorial(7) — A tutorial
    // introduction to Git"), then fragments without a title (an included option list, "-b:: Show
    // blank SHA-1 …"): a reader looks for the guides of a wide folder, not its includes.
    if (files) files.items = [...files.items.filter(isTitledDocument), ...files.items.filter((d) => !isTitledDocument(d))];
    // Those documents by their titles on one line, as a family line names its members: 40 titles
    // fit where 8 lines with leads do, so the guides among hundreds of pages are named.
    const titled = files ? files.items.filter((d) => documentTitle(d) !== undefined) : [];
    if (files && titled.length >= NAME_FAMILY_MIN) {
      const used = files.lines.reduce((n, l) => n + charLength(l) + 1, 0);
      const room = Math.max(NAME_FAMILY_MIN_CHARS, Math.floor((budget - used) * TITLES_SHARE));
      const { line, named } = titlesLine(titled, language, room);
      files.lines.push(line);
      files.items = files.items.filter((d) => !named.includes(d));
    }
  }
  let left = 0;
  const shown: { heading: string; lines: { text: string; subs: string[]; item?: Described }[] }[] = [];
  for (const section of sections) {
    const lines: { text: string; subs: string[]; item?: Described }[] = [];
    for (const line of section.lines) {
      budget -= charLength(line) + 1;
      lines.push({ text: line, subs: [] });
    }
    for (const item of section.items) {
      const line = childLine(item, language, short ? SHORT_LINE_CHARS : MAX_CHILD_LINE_CHARS);
      if (charLength(line) + 1 > budget) {
        left += 1;
        continue;
      }
      lines.push({ text: line, subs: [], item });
      budget -= charLength(line) + 1;
    }
    shown.push({ heading: section.heading, lines });
  }
  // What is left of the budget goes one level down: under each sub-folder, the first lines of
  // its own list, in turns, so a folder of a few sub-folders shows what lies inside them.
  budget += reserve;
  {
    const nested = shown.flatMap((section) => section.lines.filter((l) => l.item && (left === 0 ? l.item.child.isDirectory && l.item.child.overview && !isLegalOrHistoryName(l.item.child.name) : opens(l.item)))).map((l) => ({ line: l, subs: outlineLines(l.item?.child.overview ?? '') }));
    for (let rank = 0; nested.some((n) => rank < n.subs.length); rank += 1) {
      for (const n of nested) {
        const sub = n.subs[rank];
        if (sub === undefined) continue;
        const text = `  ${truncate(sub, NAMES_LINE.test(sub) ? MAX_NESTED_FAMILY_CHARS : MAX_NESTED_LINE_CHARS)}`;
        if (charLength(text) + 1 > budget) continue;
        n.line.subs.push(text);
        budget -= charLength(text) + 1;
      }
    }
  }
  const rendered: string[] = [];
  for (const section of shown) {
    if (section.lines.length > 0) rendered.push([`## ${section.heading}`, ...section.lines.flatMap((l) => [l.text, ...l.subs])].join('\n'));
  }
  if (left > 0) rendered.push(`- ${labels.more(left)}`);
  return `${[...head, ...rendered, ...(keyLine ? [keyLine] : [])].join('\n\n')}\n`;
}

/** "- **Documents** (67): A tutorial introduction to Git; Git User Manual; …", as many as fit in `room`. */
function titlesLine(titled: Described[], language: ContentLanguage, room: number): { line: string; named: Described[] } {
  const labels = LABELS[language];
  const separator = language === 'zh' || language === 'ja' ? '；' : '; ';
  const opening = `- **${labels.documents}** (${titled.length})${labels.colon}`;
  const named: Described[] = [];
  const titles: string[] = [];
  let length = charLength(opening) + 1;
  for (const d of titled) {
    const title = documentTitle(d) ?? '';
    if (length + charLength(title) + charLength(separator) > room) break;
    length += charLength(title) + charLength(separator);
    titles.push(title);
    named.push(d);
  }
  return { line: `${opening}${titles.join(separator)}${named.length < titled.length ? '…' : ''}`, named };
}

/**
 * A document's title in words, for a line of titles: its own title ("Git User Manual"), or a
 * manual page's name line ("gittutorial - A tutorial introduction to Git" under the title
 * "gittutorial(7)"), without the parts a split document's lead goes on with. A page titled by its
 * name alone (CMP0011, CMAKE_AR, BundleUtilities) has none: its name and lead say what it is.
 */
function documentTitle(d: Described): string | undefined {
  if (!d.title || !d.lead) return undefined;
  const own = !restatesName(d.title, d.child.name);
  if (own && !/\s/.test(d.title.trim())) return undefined;
  const manual = /^(\S+)\s+[-–—]\s+(?=\S)/.exec(d.lead);
  if (!own && !(manual && restatesName(manual[1] as string, d.child.name))) return undefined;
  const text = own ? d.title : d.lead.slice((manual as RegExpExecArray)[0].length);
  const first = (withoutPartsLine(text).split(/(?<=[.!?。！？])\s+/, 1)[0] as string).replace(/[.。]$/, '').trim();
  return first ? truncate(first.replace(/\s+/g, ' '), MAX_TITLE_CHARS) : undefined;
}

/** A child whose L0 is a title and a lead, as a whole document's is. */
function isTitledDocument(d: Described): boolean {
  return Boolean(d.title) && d.lead.length > 0;
}

/** A name without its document extension and folder slash: "git-add.txt/" → "git-add". */
function nameStem(name: string): string {
  return name.replace(/\/$/, '').replace(DOCUMENT_NAME, '');
}

/**
 * Children whose names share a prefix that ends at a separator or a capital ("git-" of git-add.txt
 * and git-am.txt, "CMAKE_" of CMAKE_AR, "Find" of FindBoost), NAME_FAMILY_MIN at least, largest
 * first; a child belongs to one family only.
 */
function nameFamilies(items: Described[]): { prefix: string; members: Described[] }[] {
  const byPrefix = new Map<string, Described[]>();
  for (const d of items) {
    const stem = nameStem(d.child.name);
    for (let i = 2; i < stem.length - 1; i += 1) {
      const at = /[-_.]/.test(stem[i] as string) ? i + 1 : /\p{Ll}/u.test(stem[i - 1] as string) && /\p{Lu}/u.test(stem[i] as string) ? i : 0;
      if (at > 0) byPrefix.set(stem.slice(0, at), [...(byPrefix.get(stem.slice(0, at)) ?? []), d]);
    }
  }
  const claimed = new Set<Described>();
  const out: { prefix: string; members: Described[] }[] = [];
  for (const [prefix, group] of [...byPrefix.entries()].sort((a, b) => b[1].length - a[1].length || b[0].length - a[0].length)) {
    const members = group.filter((d) => !claimed.has(d));
    if (members.length < NAME_FAMILY_MIN) continue;
    // Names that differ by a number (reading-001.md, reading-002.md) name nothing: their own lines say more.
    if (members.filter((d) => /\p{L}{2}/u.test(nameStem(d.child.name).slice(prefix.length))).length * 2 < members.length) continue;
    members.forEach((d) => claimed.add(d));
    out.push({ prefix, members });
  }
  return out;
}

/** The child lines ("- **name**: L0") of a folder's L1, its family lines too, without the "… and N more" line. */
function outlineLines(overview: string): string[] {
  const lines = overview.split('\n').filter((line) => line.startsWith('- ') && (line.startsWith('- **') || /\d/.test(line.slice(2, 6))));
  // A package's tests say less of it than its code: shown under it last.
  const isTest = (line: string) => TEST_FILE.test(/^- \*\*([^*]+)\*\*/.exec(line)?.[1] ?? '');
  return [...lines.filter((line) => !isTest(line)), ...lines.filter(isTest)];
}

/**
 * "- **name**: its L0", one line, with no list marker of its own (so no doubled bullet). A real
 * sub-folder's L0 is shown whole: it is all its parent says of a whole subtree, and cutting it
 * dropped the end of its sentence (the part naming its last children).
 */
function childLine(d: Described, language: ContentLanguage, max = MAX_CHILD_LINE_CHARS): string {
  const labels = LABELS[language];
  const name = d.child.isDirectory && !d.child.name.endsWith('/') ? `${d.child.name}/` : d.child.name;
  const text = unnamedAbstract(d).replace(/^(?:[-*+•]\s+)+/, '');
  return `- **${name}**${text ? `${labels.colon}${truncate(text.replace(/\s+/g, ' '), d.child.isDirectory && !isSplitDocument(d.child) ? MAX_ABSTRACT_CHARS : max)}` : ''}`;
}

/**
 * A child's L0 without a title that only restates its name ("git-add(1) — git-add - Add file
 * contents to the index" under git-add.txt is "Add file contents to the index"): the line shows
 * the name already, and the room goes to the words that say what the child is.
 */
function unnamedAbstract(d: Described): string {
  const abstract = d.child.abstract.trim();
  if (!d.title || !d.lead || !restatesName(d.title, d.child.name)) return abstract;
  // A manual page's lead repeats the name too: "git-add - Add file contents…".
  const lead = d.lead.replace(/^(\S+)\s+[-–—]\s+(?=\S)/, (whole, word: string) => (restatesName(word, d.child.name) ? '' : whole)).trim();
  return lead || abstract;
}

/** Whether a title is the child's name in other clothes: "git-add(1)" for git-add.txt, "CMP0058" for CMP0058.html. */
function restatesName(title: string, name: string): boolean {
  const plain = (text: string) => text.toLowerCase().replace(/\(\d\w*\)$/, '').replace(/[^\p{L}\p{N}]+/gu, '');
  const stem = name.replace(/\/$/, '').replace(/(?:\.\d\w{0,3})?\.(?:md|markdown|txt|rst|adoc|asciidoc|html?|xhtml|pdf|tex|org)$/i, '');
  const t = plain(title);
  return t.length > 0 && t === plain(stem);
}

/** A code skeleton's L0 (main/engine/parse/skeleton): "C file: 2 structs, 15 functions — Its doc. Defines: a, b". */
const SKELETON_ABSTRACT = /^[A-Z][\w+#]*(?: [A-Z]\w*)? (?:module|file|header|stub): [^—]*?(?: — (.*?))?(?:\.? ?Defines: .*)?$/;

function describe(child: DirectoryChild, language: ContentLanguage): Described {
  const abstract = child.abstract.trim();
  const skeleton = SKELETON_ABSTRACT.exec(abstract);
  if (skeleton) return { child, lead: (skeleton[1] ?? '').trim() };
  // An L0 that is the file's own name ("QMake.pm", "Makefile") says nothing more of it: no title, no lead.
  if (abstract === child.name.replace(/\/$/, '')) return { child, lead: '' };
  // A list under one of the summarizer's own labels ("Definitions: strbuf, worktree", a folder's
  // "Code: a.c and Makefile") has no title: the label is the summarizer's word, not the child's.
  const listed = afterListLabel(abstract);
  if (listed !== undefined) return { child, lead: listed };
  // "Title: headings" (a document with a title and no prose lead) gives its title.
  const colon = /^((?:[^:：.!?。！？]|\.(?=\S)){2,80})[:：]\s+(?=\S)/.exec(abstract);
  // (Only without a final full stop: "Tidewater is a network for a harbour: a dozen stations ... ." is a sentence.)
  if (colon && !/[.!?。！？]$/.test(abstract) && !abstract.includes(LEAD_SEPARATOR[language]) && !abstract.includes(LEAD_SEPARATOR.en)) return { child, title: (colon[1] as string).trim(), lead: abstract.slice(colon[0].length) };
  for (const separator of new Set([LEAD_SEPARATOR[language], LEAD_SEPARATOR.en, LEAD_SEPARATOR.zh])) {
    const at = abstract.indexOf(separator);
    if (at > 0) return { child, title: abstract.slice(0, at).trim(), lead: abstract.slice(at + separator.length).trim() };
  }
  // An abstract with no sentence ending and no separator is a title alone ("Git v1.5.0.1 Release Notes").
  const titleOnly = abstract.length > 0 && charLength(abstract) <= 80 && !/[.!?。！？]$/.test(abstract);
  if (titleOnly) return { child, title: abstract, lead: '' };
  return { child, lead: abstract };
}

/**
 * A code package's own description, when it has no README: Go's doc.go or a file whose doc
 * opens "Package net provides…", Python's __init__.py, Rust's lib.rs or mod.rs, a JavaScript index.
 */
const PACKAGE_DOC_NAME = /^(?:doc\.go|__init__\.py|lib\.rs|mod\.rs|index\.[cm]?[jt]sx?)$/;
const GO_PACKAGE_DOC = /^Package [\w/]+ \S+ \S+/;

/** Code in a language that is no part of a Go package (Go packages hold assembly and C of their own). */
const OTHER_LANGUAGE_CODE = /\.(?:py|[cm]?[jt]sx?|rs|java|kt|rb|php|cs|swift|scala|lua|pl)$/;
const TEST_FILE = /(?:_test\.go|_test\.py|^test_.*\.py|\.(?:test|spec)\.[cm]?[jt]sx?)$/;

function isPackageDoc(d: Described): boolean {
  const lead = d.lead.trim();
  if (d.child.isDirectory || lead.length === 0) return false;
  // (Go's form only in Go files: a page that opens "Package management is…" is no package's doc.)
  return (/\.go$/.test(d.child.name) && GO_PACKAGE_DOC.test(lead)) || (PACKAGE_DOC_NAME.test(d.child.name) && /[.!?。！？]$/.test(lead) && /\S+\s+\S+\s+\S+/.test(lead));
}

/**
 * A package's L0: its doc's lead, then its sub-packages; with none, the names it exports
 * (a folder's L0 is never word for word a child's: the two records would tie in every search).
 */
function packageAbstract(doc: Described, sorted: DirectoryChild[], content: Described[], language: ContentLanguage, max: number): string {
  const labels = LABELS[language];
  // (A skeleton's L0 gives its doc without the full stop that ran into "Defines:".)
  const lead = /[.!?。！？]$/.test(doc.lead.trim()) ? doc.lead.trim() : `${doc.lead.trim()}${end(language)}`;
  // (testdata and internal hold what the package's tests read and its private code; a split document is a document.)
  const folders = sorted.flatMap((c) => (c.isDirectory && !isSplitDocument(c) ? [c.name.replace(/\/$/, '')] : [])).filter((name) => name !== 'testdata' && name !== 'internal');
  if (folders.length > 0) return fitList(lead, labels.folders, folders, language, max);
  // What the package offers, not its tests' names.
  const names = [...new Set(content.filter((d) => !TEST_FILE.test(d.child.name)).flatMap((d) => definedNames(d.child.abstract)))];
  const exported = names.filter((n) => /^\p{Lu}/u.test(n));
  return doc.lead.trim() === doc.child.abstract.trim() && names.length > 0 ? fitList(lead, labels.definitions, exported.length > 0 ? exported : names, language, max) : lead;
}


/** "Lead. Label: a, b, c." (or "Label: a, b, c." without a lead) with as many of the names as fit in `max`. */
function fitList(lead: string, label: string, names: string[], language: ContentLanguage, max: number): string {
  const labels = LABELS[language];
  const opening = `${lead}${lead ? labels.sentenceJoiner : ''}${label}${labels.colon}`;
  let count = 0;
  while (count < names.length && charLength(`${opening}${names.slice(0, count + 1).join(labels.listSeparator)}…`) <= max) count += 1;
  if (count === 0) return lead;
  return `${opening}${names.slice(0, count).join(labels.listSeparator)}${count < names.length ? '…' : end(language)}`;
}

function pickIntro(content: Described[], language: ContentLanguage): Described | undefined {
  const readme = pickReadme(content, language);
  if (readme) return readme;
  // A Go file's doc is its folder's only in a folder of Go: beside api.ts and station.py,
  // uplink.go's "Package uplink forwards…" says what one file does, not what src/ is.
  // (Assembly and C beside Go are the package's own: runtime/cgo's gcc_*.c.)
  const count = (pattern: RegExp) => content.filter((d) => !d.child.isDirectory && pattern.test(d.child.name)).length;
  const goFolder = count(/\.go$/) > count(OTHER_LANGUAGE_CODE);
  const docs = content.filter((d) => isPackageDoc(d) && (goFolder || !/\.go$/.test(d.child.name)));
  // Go's doc.go is the package doc's home; then any file whose doc names the package.
  return docs.find((d) => d.child.name === 'doc.go') ?? docs[0];
}

/** The folder's README or index page, when its title is a title in words ("Guide for Debian Maintainers", not "index" or "README"). */
function introTitled(content: Described[]): (Described & { title: string }) | undefined {
  for (const pattern of INTRO_NAMES) {
    const found = content.find((d) => pattern.test(d.child.name) && d.title && /\s/.test(d.title.trim()) && !restatesName(d.title, d.child.name));
    if (found) return found as Described & { title: string };
  }
  return undefined;
}

function pickReadme(content: Described[], language: ContentLanguage): Described | undefined {
  for (const pattern of INTRO_NAMES) {
    // An introduction whose lead only announces a list ("... the following documents:") says less than the children's titles.
    // Nor does an index that is a table of paths ("./complete Shell completion code ./functions ..."),
    // even when its L0 is only the table's first row ("Path Description X-Ref ./obashdb Deprecated…"):
    // its L1, the rows of its parts, counts too.
    const paths = (d: Described) => (d.child.abstract.match(/(?:^|\s)(?:\.\/[\w.-]+|[\w.-]+\/[\w./-]*)/g)?.length ?? 0) + (d.child.overview?.match(/(?:^|\s)\.\/[\w.-]+/g)?.length ?? 0);
    const found = content.find((d) => pattern.test(d.child.name) && tokenize(d.child.abstract, language).length >= 3 && !/[:：]$/.test(d.child.abstract.trim()) && paths(d) < 3);
    if (found) return found;
  }
  return undefined;
}

/**
 * How the folder's L0 names a child: its title, or its lead when the title is one word (an
 * identifier such as CMP0058 or add_executable, or a bare "Introduction"): the lead says what it is.
 */
function exampleName(d: Described): string {
  const title = exampleTitle(d);
  // Its first sentence, without the titles of a split document's other parts ("Then: OPTIONS, …").
  const lead = (withoutPartsLine(d.lead).split(/(?<=[.!?。！？])\s+/, 1)[0] as string).replace(/[.。:：]$/, '').trim();
  if (d.title && !/\s/.test(d.title) && lead && !/\s/.test(title) && /\s/.test(lead)) return truncate(lead, MAX_EXAMPLE_CHARS);
  return title;
}

function exampleTitle(d: Described): string {
  if (d.title) return d.title;
  return d.child.name.replace(/\/$/, '').replace(/\.(md|markdown|txt|rst|adoc|html?)$/i, '');
}

interface Family {
  /** The title with its version or number taken out, as the newest member writes it. */
  phrase: string;
  members: Described[];
  first: string;
  last: string;
}

/** A version or a number in a title: 2.39.5, v1.5.0, 3.25, 12. */
const NUMBER = /\bv?(\d+(?:\.\d+)*)(?:[-.]?(?:rc|alpha|beta)\d*)?\b/i;

/** Titles that differ only in a number ("Git v1.5.0 Release Notes"), at least three, largest first. */
function findFamilies(content: Described[]): Family[] {
  const groups = new Map<string, Described[]>();
  for (const d of content) {
    const title = d.title ?? (d.lead && charLength(d.lead) <= 80 ? d.lead : undefined);
    if (!title || !NUMBER.test(title)) continue;
    const key = title.toLowerCase().replace(new RegExp(NUMBER.source, 'gi'), '#').replace(/\s+/g, ' ').trim();
    if (!/\p{L}{3}/u.test(key)) continue;
    groups.set(key, [...(groups.get(key) ?? []), d]);
  }
  const families: Family[] = [];
  // Largest first; a child belongs to one family only.
  const claimed = new Set<Described>();
  for (const group of [...groups.values()].sort((a, b) => b.length - a.length)) {
    const members = group.filter((d) => !claimed.has(d));
    if (members.length < MIN_FAMILY) continue;
    const newest = [...members].sort((a, b) => compareNatural(versionOf(a), versionOf(b))).at(-1) as Described;
    const phrase = (newest.title ?? newest.lead).replace(NUMBER, '').replace(/\s+/g, ' ').replace(/^[\s,:;-]+|[\s,:;-]+$/g, '').trim();
    // Siblings named like the members ("2.31.3.txt" beside "1.5.0.1.txt") belong too, titled or not.
    const nameShapes = new Set(members.map((d) => nameShape(d.child.name)));
    const alike = nameShapes.size === 1 ? content.filter((d) => !claimed.has(d) && !members.includes(d) && nameShapes.has(nameShape(d.child.name)) && NUMBER.test(d.child.name)) : [];
    const all = [...members, ...alike];
    all.forEach((d) => claimed.add(d));
    const numbers = all.map((d) => versionOf(d)).sort(compareNatural);
    families.push({ phrase, members: all, first: numbers[0] as string, last: numbers[numbers.length - 1] as string });
  }
  return families.sort((a, b) => b.members.length - a.members.length || compareNatural(a.phrase, b.phrase));
}

/** The number in a child's title, else in its name. */
function versionOf(d: Described): string {
  const title = d.title ?? (d.lead && charLength(d.lead) <= 80 ? d.lead : '');
  return (NUMBER.exec(title) ?? NUMBER.exec(d.child.name))?.[1] ?? '';
}

/** A name with its numbers taken out: "1.5.0.1.txt" and "2.39.5.txt" are both "#.txt". */
function nameShape(name: string): string {
  return name.toLowerCase().replace(/\/$/, '').replace(/\d+(?:\.\d+)*/g, '#');
}

/** "Git Release Notes, 1.5.0 to 2.39.5"; counted in an overview: "485 × Git Release Notes, 1.5.0 to 2.39.5". */
function familyLine(family: Family, language: ContentLanguage, counted = false): string {
  const zh = language === 'zh' || language === 'ja';
  const range = family.first === family.last ? family.first : zh ? `${family.first} 至 ${family.last}` : `${family.first} to ${family.last}`;
  if (zh) return `${counted ? `${family.members.length} 篇` : ''}${family.phrase}${zh ? '，' : ', '}${range}`;
  return `${counted ? `${family.members.length} × ` : ''}${family.phrase}, ${range}`;
}

function partsLine(titles: string[], language: ContentLanguage): string {
  if (language === 'zh' || language === 'ja') return `其余部分：${titles.join('、')}。`;
  return `Then: ${joinList(titles, 'en')}.`;
}

function alsoLine(rest: Described[], language: ContentLanguage): string {
  const names = rest.slice(0, 3).map((d) => exampleName(d));
  if (language === 'zh' || language === 'ja') return `另有${names.join('、')}${rest.length > 3 ? '等' : ''}。`;
  return `Also ${joinList(rest.length > 3 ? [...names, 'others'] : names, 'en')}.`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function end(language: ContentLanguage): string {
  return language === 'en' || language === 'ko' ? '.' : '。';
}
