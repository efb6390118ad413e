/**
 * Directory L0/L1 of the offline summarizer, through the summarizer the DAG calls: what the
 * folder is for in one sentence (from its README, from a split document's first part, from a
 * family of titles with its range, or from the subject its children share), never the count
 * template, and an overview that lists each child with its own L0, without doubled bullets.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DirectoryEventHandler } from '../../main/engine/summarize/dag.js';
import { ContextFS } from '../../main/engine/tree/context-fs.js';
import { noopIndex } from '../../main/engine/ports/context-index.js';
import { memoryLogger } from '../../main/engine/ports/logger.js';
import type { NodeMeta } from '../../shared/types/node.js';
import { extractiveFileSummary, extractiveSummarizer } from '../../main/engine/summarize/extractive-summarizer.js';
import { summarizeDirectory } from '../../main/engine/summarize/extractive-directory.js';
import type { ChildSummary } from '../../main/engine/summarize/types.js';

const summarizer = extractiveSummarizer();
const child = (name: string, abstract: string, isDirectory = false, category = 'document'): ChildSummary => ({
  uri: `ctx://resources/x/${name}`,
  name,
  abstract,
  category,
  is_directory: isDirectory,
  has_abstract: abstract.length > 0,
});
const summarize = (name: string, children: ChildSummary[]) => summarizer.summarizeDirectory({ uri: `ctx://resources/${name}/`, name, children });
/** The count template the summarizer used to write ("7 files on X, Y and Z, including a.md…", "共 3 个文件…"). */
const COUNT_TEMPLATE = /\d+ (files?|folders?)\b|including|共 \d+ 个/;

describe('a folder with a README', () => {
  const children = [
    child('README.md', 'Git - fast, scalable, distributed revision control system — Git is a fast, scalable, distributed revision control system with an unusually rich command set.'),
    child('README.Debian', 'Git for Debian — When setting up a git.example.org server, there are several things to configure.'),
    child('RelNotes', 'Git Release Notes, 1.5.0.1 to 2.39.5.', true),
    child('contrib', 'Although these pieces are available as part of the official git source tree, they are in somewhat different status.', true),
    child('copyright', 'Copyright and licence terms: GPL and LGPL.'),
  ];

  it("says what the folder is for with the README's lead, not a sentence of README.Debian", async () => {
    const { abstract } = await summarize('git', children);
    // The README's lead, not its whole L0: a folder's L0 never repeats a child's word for word (two equal index records tie in every search).
    expect(abstract).toBe('Git is a fast, scalable, distributed revision control system with an unusually rich command set.');
  });

  it("keeps a README lead whole when it has a colon inside (it is a sentence, not a title)", async () => {
    const { abstract } = await summarize('sample', [
      child('README.md', 'Tidewater — Tidewater is a small weather-station network for a harbour: a dozen solar-powered stations measure wind and pressure.'),
      child('docs', 'Tidewater architecture — How a reading travels from a sensor to the forecast.', true),
    ]);
    expect(abstract).toBe('Tidewater is a small weather-station network for a harbour: a dozen solar-powered stations measure wind and pressure.');
  });

  it('lists every child with its own L0 under the paragraph on the whole', async () => {
    const { overview } = await summarize('git', children);
    const lines = overview.split('\n');
    expect(lines[0]).toBe('# git');
    expect(lines[2]).toMatch(/^Git is a fast, scalable/);
    expect(overview).toContain('- **RelNotes/**: Git Release Notes, 1.5.0.1 to 2.39.5.');
    expect(overview).toContain('- **README.Debian**: Git for Debian — When setting up a git.example.org server');
    // Legal files come last.
    expect(overview.indexOf('**copyright**')).toBeGreaterThan(overview.indexOf('**README.md**'));
  });
});

describe('a folder without a README', () => {
  const properties = [
    ['ADDITIONAL_CLEAN_FILES.html', 'ADDITIONAL_CLEAN_FILES — A list of files or directories that will be removed as a part of the global clean target.'],
    ['ALIAS_GLOBAL.html', 'ALIAS_GLOBAL — Read-only target property indicating if an ALIAS target was created as a global target.'],
    ['ARCHIVE_OUTPUT_DIRECTORY.html', 'ARCHIVE_OUTPUT_DIRECTORY — Output directory in which to build ARCHIVE target files.'],
    ['BUILD_RPATH.html', 'BUILD_RPATH — A semicolon-separated list specifying runtime path (RPATH) entries to add to binaries linked in the build tree.'],
    ['COMPILE_OPTIONS.html', 'COMPILE_OPTIONS — List of options to pass to the compiler when compiling this target property.'],
    ['CXX_STANDARD.html', 'CXX_STANDARD — The C++ standard whose features are requested to build this target.'],
    ['INCLUDE_DIRECTORIES.html', 'INCLUDE_DIRECTORIES — List of preprocessor include file search directories for the target.'],
    ['OUTPUT_NAME.html', 'OUTPUT_NAME — Output name for target files.'],
  ].map(([name, abstract]) => child(name as string, abstract as string));

  it('synthesizes the subject the children share and says what they are from their leads when their titles are identifiers', async () => {
    const { abstract } = await summarize('prop_tgt', properties);
    expect(abstract).not.toMatch(COUNT_TEMPLATE);
    expect(abstract).not.toMatch(/\.html/);
    expect(abstract).toMatch(/^Target\b/);
    // The identifiers (ADDITIONAL_CLEAN_FILES, ...) say nothing to a reader; their leads do, in order, set apart by semicolons.
    expect(abstract).toMatch(/: A list of files or directories that will be removed as a part of the global…; Read-only target property indicating/);
    expect(abstract).not.toContain('ALIAS_GLOBAL');
  });

  it('names titled children by their titles', async () => {
    const { abstract } = await summarize('howto', [
      child('recover-corrupted-blob-object.txt', 'How to recover a corrupted blob object — Date: Fri, 9 Nov 2007. Linus explains how to find and replace a corrupted object.'),
      child('revert-a-faulty-merge.txt', 'How to revert a faulty merge — Sometimes a faulty merge is pushed; this explains what reverting it means for later merges.'),
      child('rebase-from-internal-branch.txt', 'How to rebase from an internal branch — A branch that tracks an upstream one may be rebased when the upstream is.'),
    ]);
    expect(abstract).toMatch(/: How to rebase from an internal branch, How to recover a corrupted blob object and How to revert a faulty merge\.$/);
  });

  it("shows under each sub-folder the first lines of its own list when the budget allows (a folder of few sub-folders shows what lies inside them)", async () => {
    const inner = await summarize('prop_tgt', properties);
    const { overview } = await summarize('cmake-doc', [
      child('prop_tgt', inner.abstract, true),
      child('index.html', 'CMake Reference Documentation — CMake is a tool to manage building of source code.'),
    ].map((c) => (c.is_directory ? { ...c, overview: inner.overview } : c)));
    const lines = overview.split('\n');
    const at = lines.findIndex((l) => l.startsWith('- **prop_tgt/**: Target'));
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(/^ {2}- \*\*ADDITIONAL_CLEAN_FILES\.html\*\*: A list of files/);
    expect(lines.filter((l) => l.startsWith('  - ')).length).toBe(properties.length);
    // A smaller budget keeps every child's own line and only the nested lines that fit.
    const small = summarizeDirectory([{ name: 'prop_tgt', abstract: inner.abstract, overview: inner.overview, category: 'directory', isDirectory: true }, { name: 'index.html', abstract: 'CMake Reference Documentation — CMake is a tool.', category: 'document', isDirectory: false }], { dirName: 'cmake-doc', maxOverviewChars: 700 });
    expect(small.overview).toContain('- **prop_tgt/**: Target');
    expect(small.overview.split('\n').filter((l) => l.startsWith('  - ')).length).toBeLessThan(properties.length);
    expect([...small.overview].length).toBeLessThanOrEqual(700);
  });

  it('takes the first part of a document split into parts as its own L0', async () => {
    const parts = [
      child('02-options.md', 'All of the single-character shell options documented in the description of the set builtin command can be used as options.'),
      child('01-bash.md', 'BASH(1) — Bash is an sh-compatible command language interpreter that executes commands read from the standard input or from a file.'),
      child('10-expansion.md', 'Expansion is performed on the command line after it has been split into words.'),
    ];
    const { abstract } = await summarize('bash.html', parts);
    expect(abstract).toBe('BASH(1) — Bash is an sh-compatible command language interpreter that executes commands read from the standard input or from a file.');
    // Titled parts are named after the first one's lead.
    const titled = await summarize('architecture.md', [
      child('01-tidewater-architecture.md', 'Tidewater architecture — This document describes how a reading travels from a sensor to the forecast.'),
      child('02-failure-modes.md', 'Failure modes — The system is designed so that no single failure hides the weather.'),
    ]);
    expect(titled.abstract).toBe('Tidewater architecture — This document describes how a reading travels from a sensor to the forecast. Then: Failure modes.');
  });
});

describe('a folder of hundreds of release notes', () => {
  const versions: string[] = [];
  for (let minor = 5; minor <= 9; minor += 1) for (let patch = 0; patch < 30; patch += 1) versions.push(`1.${minor}.${patch}`);
  for (let minor = 0; minor <= 39; minor += 1) for (let patch = 0; patch < (minor === 39 ? 6 : 8); patch += 1) versions.push(`2.${minor}.${patch}`);
  // Old notes say "GIT", new ones "Git": the newest spelling names the family.
  const notes = versions.map((v, i) =>
    // Some real notes have no title line, only "This release merges up the fixes that appear in v2.31.3.": their names place them.
    i % 7 === 3
      ? child(`${v}.txt`, `This release merges up the fixes that appear in v${v}.`)
      : i % 3 === 0 || v === '2.39.5'
      ? child(`${v}.txt`, `Git v${v} Release Notes — This release merges up the fixes that appear in v${v}.`)
      : child(`${v}.txt`, `GIT v${v} Release Notes: Fixes since v${versions[Math.max(0, i - 1)]}`),
  );
  const children = [...notes, child('copyright', 'Copyright and licence terms: GPL.')];

  it('says what they are with their range, in one sentence', async () => {
    const { abstract } = await summarize('RelNotes', children);
    expect(abstract).toBe('Git Release Notes, 1.5.0 to 2.39.5.');
  });

  it('groups them in the overview as one line with the range, not hundreds of lines', async () => {
    const { overview } = await summarize('RelNotes', children);
    expect(overview).toContain(`- ${notes.length} × Git Release Notes, 1.5.0 to 2.39.5`);
    // One line for the family, one for the copyright file: each child is in one line only.
    expect(overview.split('\n').filter((l) => l.startsWith('- '))).toEqual([`- ${notes.length} × Git Release Notes, 1.5.0 to 2.39.5`, '- **copyright**: Copyright and licence terms: GPL.']);
    expect([...overview].length).toBeLessThanOrEqual(4000);
  });
});

describe('Chinese folders', () => {
  const chapters = [
    child('ch01.zh-cn.html', 'Chapter 1. 概览——对 package-1.0.tar.gz，一个包含了简单的 C 语言源代码的程序来说，它在 Debian 下打包工作可以按照下列流程，使用 debmake 命令进行。'),
    child('ch02.zh-cn.html', 'Chapter 2. 预备知识——这里描述的是在您使用 debmake 命令进行 Debian 打包工作之前需要了解的基础知识。'),
    child('ch03.zh-cn.html', 'Chapter 3. 配置工具——打包之前需要正确设置构建 Debian 软件包所需的工具。'),
  ];

  it('without an index page: the shared subject and the titles, in Chinese', async () => {
    const { abstract, overview } = await summarize('zh-cn', chapters);
    expect(abstract).toMatch(/^关于.*(Debian|debmake|打包).*的文档：Chapter 1\. 概览、Chapter 2\. 预备知识、Chapter 3\. 配置工具。$/);
    expect(abstract).not.toMatch(COUNT_TEMPLATE);
    expect(overview).toContain('## 文件');
  });

  it("with an index page: the index's lead", async () => {
    const index = child('index.zh-cn.html', 'Debian 维护者指南——本教程文档描述了使用 debmake 命令制作 Debian 软件包的方法。');
    const { abstract } = await summarize('zh-cn', [...chapters, index]);
    expect(abstract).toBe('本教程文档描述了使用 debmake 命令制作 Debian 软件包的方法。');
  });
});

describe('overview bullets', () => {
  it('are never doubled, even when a child L0 starts with a list marker', async () => {
    const { overview } = await summarize('notes', [
      child('1.5.0.1.txt', '- git-add and git-update-index on a filesystem on which executable bits are unreliable used to throw away an existing executable bit.'),
      child('1.5.3.2.txt', '* git-push sent thin packs by default, which was not good.'),
      child('todo', '+ write the release notes', true),
    ]);
    const bullets = overview.split('\n').filter((l) => l.startsWith('- '));
    expect(bullets).toHaveLength(3);
    for (const bullet of bullets) expect(bullet).toMatch(/^- \*\*[^*]+\*\*: [^-*+ ]/);
  });
});

describe("a folder's Covers line (what its sub-folders hold)", () => {
  const withOverview = (name: string, abstract: string, overview: string): ChildSummary => ({ ...child(name, abstract, true), overview });
  const children = [
    withOverview(
      'examples',
      'Sample scripts and functions for the shell.',
      '# examples\n\n## Folders\n- **scripts/**: Small scripts: a calculator, a spinner, and setting the xterm title from the shell.\n- **shellmath/**: Floating-point arithmetic written in pure shell, with tests and timing data.\n\n**Key terms:** shell, scripts\n',
    ),
    withOverview('bash.html', 'BASH — GNU Bourne-Again SHell manual page.', '# bash.html\n\nThe shell manual page.\n\n## Files\n- **01-quoting.md**: Quoting removes the special meaning of characters to the shell.\n- **02-redirection.md**: Redirection of input and output of shell commands.\n'),
    child('README', 'This is the documentation of the shell; the examples come from its source tree.'),
  ];

  it("names each sub-folder's distinctive terms from its L1, not the words every child shares", async () => {
    const { overview } = await summarize('bash-doc', children);
    const covers = overview.split('\n').find((l) => l.startsWith('**Covers:**'));
    expect(covers).toBeDefined();
    // From examples/'s L1 (two levels down) and from bash.html/'s L1.
    for (const term of ['calculator', 'arithmetic', 'Quoting', 'manual']) expect(covers).toContain(term);
    // "shell" is in every child: it sets none of them apart. Labels and file names are not terms.
    expect(covers).not.toMatch(/\bshell\b|Key terms|Folders|scripts\//i);
  });

  it('keeps the L0 a sentence of its own (the Covers line is only in the L1)', async () => {
    const { abstract } = await summarize('bash-doc', children);
    expect(abstract).toBe('This is the documentation of the shell; the examples come from its source tree.');
  });

  it('is left out when no child is a folder with an L1', async () => {
    const { overview } = await summarize('plain', [child('a.md', 'Tides at the harbour mouth.'), child('b.md', 'Wind speed at the pier.')]);
    expect(overview).not.toContain('Covers');
  });

  it('carries a grandchild folder\'s terms to the top of a real tree summarized by the DAG', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-covers-'));
    try {
      const fs = await ContextFS.open(dir);
      const meta = (uri: string, abstract: string): NodeMeta => ({ uri, kind: 'file', context_type: 'resource', category: 'document', abstract, overview: abstract, summary_status: 'done', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' });
      const base = 'ctx://resources/handbook/';
      const files: [string, string][] = [
        [`${base}README.md`, 'The station handbook: how the weather network is run.'],
        [`${base}field/sensors/anemometer.md`, 'Calibrating the anemometer against a reference mast.'],
        [`${base}field/sensors/barometer.md`, 'Barometer drift and how often to replace its capsule.'],
        [`${base}field/visits.md`, 'Planning visits to the remote stations.'],
        [`${base}office/billing.md`, 'Invoices for the network and how they are paid.'],
        [`${base}office/staff.md`, 'Who is on call for the network this month.'],
      ];
      for (const [uri, abstract] of files) await fs.writeFile(uri, abstract, meta(uri, abstract));
      const handler = new DirectoryEventHandler({ fs, summarizer: extractiveSummarizer(), fileFallback: extractiveSummarizer(), index: noopIndex, logger: memoryLogger(), clock: { now: () => new Date('2026-01-01T00:00:00Z') }, emit: () => {} });
      await handler.processDirectoryEvent(base);
      const top = await fs.read(base, 1);
      const covers = top.split('\n').find((l) => l.startsWith('**Covers:**')) ?? '';
      // anemometer.md is two folders down: the top folder's L1 lists only field/'s one-line L0 otherwise.
      expect(covers).toMatch(/anemometer/i);
      expect(covers).toMatch(/invoices|billing/i);
      // A second run after a change in office/ reuses field/ as it is: the top still names what it covers.
      await fs.writeFile(`${base}office/holidays.md`, 'Holidays', meta(`${base}office/holidays.md`, 'Public holidays when the office is closed.'));
      // (As an ingest marks them: the changed folder and its parent are no longer current.)
      for (const uri of [`${base}office/`, base]) await fs.writeMeta(uri, { ...((await fs.readMetaOf(uri, 'dir')) as NodeMeta), summary_status: 'pending' });
      const events: string[] = [];
      const again = new DirectoryEventHandler({ fs, summarizer: extractiveSummarizer(), fileFallback: extractiveSummarizer(), index: noopIndex, logger: memoryLogger(), clock: { now: () => new Date('2026-01-02T00:00:00Z') }, emit: (e) => { if (e.type === 'dag/summary-done' && e.reused) events.push(e.uri); } });
      await again.processDirectoryEvent(base);
      expect(events).toContain(`${base}field/`);
      const after = (await fs.read(base, 1)).split('\n').find((l) => l.startsWith('**Covers:**')) ?? '';
      expect(after).toMatch(/anemometer/i);
      expect(after).toMatch(/holidays/i);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a wide folder of split documents and a few real sub-folders', () => {
  // 80 command pages split into parts (folders named as documents), then one real sub-folder.
  const pages = Array.from({ length: 80 }, (_, i) => {
    const name = `git-cmd${String(i).padStart(2, '0')}.txt`;
    // Every fifth page past the first is about merging; the first ones have words of their own (in name order they come first).
    const own = i < 3 ? `zebra${i} yak${i} walrus${i}` : `page${i}`;
    const theme = i % 5 === 0 && i > 0 ? 'merge conflicts and merge strategies' : 'plain options';
    return { ...child(name, `git-cmd${i}(1) — Runs command ${i}. Then: OPTIONS.`, true), overview: `# ${name}\n\n${own} ${theme}\n\n**Key terms:** ${own}\n` };
  });
  const howto = { ...child('howto', 'How to revert a faulty merge, How to recover a corrupted blob object and others.', true), overview: '# howto\n\n- **revert-a-faulty-merge.txt**: How to revert a faulty merge\n' };

  it('lists the real sub-folder first, the split documents with the files', async () => {
    const { overview } = await summarize('git-doc', [...pages, howto]);
    const folders = overview.slice(overview.indexOf('## Folders'), overview.indexOf('## Files'));
    expect(folders).toContain('- **howto/**: How to revert a faulty merge');
    expect(folders).not.toContain('git-cmd00.txt');
    // Its list does not fit: the pages, a family of names, are one line of their names.
    expect(overview.slice(overview.indexOf('## Files'))).toContain('- **git-…** (80): cmd00, cmd01, cmd02');
    expect(overview).not.toContain('- **git-cmd00.txt/**');
    // And still the real sub-folder is opened: what it holds is shown under it.
    expect(folders).toContain('\n  - **revert-a-faulty-merge.txt**: How to revert a faulty merge');
  });

  it('names in its Covers line the terms that set several sub-folders apart before the first ones\' own words', async () => {
    const { overview } = await summarize('git-doc', [...pages, howto]);
    const covers = (/\*\*Covers:\*\* (.*)/.exec(overview)?.[1] ?? '').split(', ');
    expect(covers.slice(0, 3)).toContain('merge');
    expect(covers.indexOf('merge')).toBeLessThan(covers.indexOf('zebra0') === -1 ? Infinity : covers.indexOf('zebra0'));
  });
});

describe('a child line under its name', () => {
  it('leaves out a title that only restates the name, and a manual page lead that repeats it', async () => {
    const { overview } = await summarize('git-doc', [
      child('git-add.txt', 'git-add(1) — git-add - Add file contents to the index.', true),
      child('CMP0058.html', 'CMP0058 — Ninja requires custom command byproducts to be explicit.', true),
      child('gittutorial.txt', 'A tutorial introduction to Git — This tutorial explains how to import a new project into Git.', true),
    ]);
    expect(overview).toContain('- **git-add.txt/**: Add file contents to the index.');
    expect(overview).toContain('- **CMP0058.html/**: Ninja requires custom command byproducts to be explicit.');
    // A title that says more than the name stays.
    expect(overview).toContain('- **gittutorial.txt/**: A tutorial introduction to Git — This tutorial');
  });
});

describe('a wide folder whose names make families', () => {
  it('names every member of a family on one line when the list does not fit, and lists the other documents as before', async () => {
    const verbs = ['add', 'am', 'apply', 'bisect', 'blame', 'branch', 'checkout', 'cherry-pick', 'clone', 'commit', 'diff', 'fetch', 'grep', 'log', 'merge', 'pull', 'push', 'rebase', 'reset', 'revert', 'stash', 'status', 'switch', 'tag'];
    const commands = ['', '-index', '-tree', '-file'].flatMap((suffix) => verbs.map((v) => `${v}${suffix}`));
    const children = [
      ...commands.map((c) => child(`git-${c}.txt`, `git-${c}(1) — git-${c} - Run the ${c} step of the version control workflow on the current repository.`, true)),
      child('gittutorial.txt', 'A tutorial introduction to Git — This tutorial explains how to import a new project into Git, make changes to it, and share changes with other developers.', true),
    ];
    const { overview } = await summarize('git-doc', children);
    expect(overview.length).toBeLessThanOrEqual(4000);
    const line = overview.split('\n').find((l) => l.startsWith('- **git-…** (96): ')) as string;
    expect(line).toBeDefined();
    // In name order, every one of them: the late ones (merge, revert) too.
    for (const c of commands) expect(line.split(': ')[1]?.split(', ')).toContain(c);
    expect(line.indexOf('merge')).toBeLessThan(line.indexOf('revert'));
    expect(overview).toContain('- **gittutorial.txt/**: A tutorial introduction to Git');
    expect(overview).not.toMatch(/and \d+ more/);
    // A folder whose list fits lists each child with its own line, family or not.
    const small = await summarize('git-doc', children.slice(0, 9));
    expect(small.overview).toContain('- **git-add.txt/**: Run the add step');
    expect(small.overview).not.toContain('**git-…**');
  });
  it('lists a wide folder\'s titled documents before its untitled fragments when the list does not fit', async () => {
    // git-doc's shape: a family of command pages, included option lists (no title, a "-x::" lead)
    // that sort first, and the guides, which the fragments used to push past "… and N more".
    const verbs = ['add', 'am', 'apply', 'bisect', 'blame', 'branch', 'checkout', 'clone', 'commit', 'diff', 'fetch', 'grep', 'log', 'merge', 'pull', 'push'];
    const fragments = Array.from({ length: 60 }, (_, i) => child(`a${String(i).padStart(2, '0')}-options.txt`, `-${String.fromCharCode(97 + (i % 26))}:: --option-${i}:: Show the value of option ${i} for the command that includes this list of options.`, true));
    const children = [
      ...verbs.map((v) => child(`git-${v}.txt`, `git-${v}(1) — git-${v} - Run the ${v} step of the version control workflow.`, true)),
      ...fragments,
      child('gittutorial.txt', 'gittutorial(7) — A tutorial introduction to Git: importing a project, making changes and sharing them.', true),
    ];
    const { overview } = await summarize('git-doc', children);
    expect(overview.length).toBeLessThanOrEqual(4000);
    expect(overview).toMatch(/and \d+ more/);
    expect(overview).toContain('- **gittutorial.txt/**: ');
    const tutorial = overview.indexOf('**gittutorial.txt/**');
    const fragment = overview.indexOf('**a00-options.txt/**');
    if (fragment >= 0) expect(tutorial).toBeLessThan(fragment);
  });
});

describe("a wide folder's documents on one line of titles", () => {
  // The NAME lines of Debian's git-doc pages, written as git writes its AsciiDoc manual pages.
  const COMMANDS: [string, string][] = [
    ['add', 'Add file contents to the index'], ['am', 'Apply a series of patches from a mailbox'], ['apply', 'Apply a patch to files and/or to the index'],
    ['bisect', 'Use binary search to find the commit that introduced a bug'], ['blame', 'Show what revision and author last modified each line of a file'],
    ['branch', 'List, create, or delete branches'], ['checkout', 'Switch branches or restore working tree files'], ['cherry-pick', 'Apply the changes introduced by some existing commits'],
    ['clone', 'Clone a repository into a new directory'], ['commit', 'Record changes to the repository'], ['diff', 'Show changes between commits, commit and working tree, etc'],
    ['fetch', 'Download objects and refs from another repository'], ['grep', 'Print lines matching a pattern'], ['log', 'Show commit logs'],
    ['merge', 'Join two or more development histories together'], ['pull', 'Fetch from and integrate with another repository or a local branch'],
    ['push', 'Update remote refs along with associated objects'], ['rebase', 'Reapply commits on top of another base tip'], ['reset', 'Reset current HEAD to the specified state'],
    ['revert', 'Revert some existing commits'], ['stash', 'Stash the changes in a dirty working directory away'], ['status', 'Show the working tree status'],
    ['switch', 'Switch branches'], ['tag', 'Create, list, delete or verify a tag object signed with GPG'],
  ];
  const GUIDES: [string, string][] = [
    ['gitattributes', 'Defining attributes per path'], ['gitcli', 'Git command-line interface and conventions'], ['gitcore-tutorial', 'A Git core tutorial for developers'],
    ['gitcredentials', 'Providing usernames and passwords to Git'], ['giteveryday', 'A useful minimum set of commands for Everyday Git'], ['gitfaq', 'Frequently asked questions about using Git'],
    ['gitignore', 'Specifies intentionally untracked files to ignore'], ['gitmodules', 'Defining submodule properties'],
    ['gitrevisions', 'Specifying revisions and ranges for Git'], ['gitsubmodules', 'Mounting one repository inside another'], ['gittutorial', 'A tutorial introduction to Git'],
    ['gitworkflows', 'An overview of recommended workflows with Git'],
  ];
  const page = (name: string, section: number, description: string) => `${name}(${section})\n${'='.repeat(name.length + 3)}\n\nNAME\n----\n${name} - ${description}\n`;
  // Included option lists: no title of their own.
  const fragment = (i: number) => `-${String.fromCharCode(97 + (i % 26))}::\n\tShow the value of option ${i} for the command that includes this list of options.\n`;

  async function folderOf(files: Record<string, string>): Promise<ChildSummary[]> {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-titles-'));
    try {
      for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
      const out: ChildSummary[] = [];
      for (const name of Object.keys(files)) {
        const { abstract, overview } = extractiveFileSummary(await readFile(join(dir, name), 'utf8'), name, 'text');
        out.push({ ...child(name, abstract), overview });
      }
      return out;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  it("names every guide by its title on one line, once, even past the room of lines with leads (git-doc's shape)", async () => {
    const files: Record<string, string> = {};
    for (const [verb, description] of COMMANDS) files[`git-${verb}.txt`] = page(`git-${verb}`, 1, description);
    for (const [name, description] of GUIDES) files[`${name}.txt`] = page(name, 7, description);
    for (let i = 0; i < 40; i += 1) files[`opt${String(i).padStart(2, '0')}-options.txt`] = fragment(i);
    const { overview } = await summarize('git-doc', await folderOf(files));
    expect(overview.length).toBeLessThanOrEqual(4000);
    const line = overview.split('\n').find((l) => l.startsWith('- **Documents** (12): ')) as string;
    expect(line).toBeDefined();
    // In name order, by their titles, not by their manual page names: the last one too.
    expect(line).toBe(`- **Documents** (12): ${GUIDES.map(([, d]) => d).join('; ')}`);
    // Named once: no line of its own with a lead as well.
    expect(overview).not.toContain('**gittutorial.txt**');
    expect(overview).toContain('- **git-…** (24): add, am, apply');
  });

  it('leaves pages titled by their names alone (CMake policies) on lines with their names', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 70; i += 1) {
      const id = `CMP${String(i).padStart(4, '0')}`;
      files[`${id}.txt`] = `${id}\n${'='.repeat(id.length)}\n\nThe policy number ${i} sets whether the build keeps the behavior of CMake releases before it.\n`;
    }
    const { overview } = await summarize('policy', await folderOf(files));
    expect(overview).not.toContain('**Documents**');
    expect(overview).toContain('- **CMP0000.txt**: ');
  });
});

describe("an index page whose lead only announces a list", () => {
  it("still names the folder by its title (debmake-doc's en/ and zh-cn/), and is not listed again", async () => {
    // The L0s of Debian's debmake-doc pages, as the offline ingest writes them.
    const en = await summarize('en', [
      child('index.en.html', 'Guide for Debian Maintainers — This guide was made using the following previous documents as its reference:'),
      child('ch01.en.html', 'Chapter 1. Overview — The Debian packaging of the package-1.0.tar.gz, containing a simple C source, is described.', true),
      child('ch02.en.html', 'Chapter 2. Prerequisites — Here are the prerequisites which you need to understand before you get involved.', true),
      child('ch03.en.html', 'Chapter 3. Tool Setups — The build-essential package must be installed in the build environment.', true),
    ]);
    expect(en.abstract).toBe('Guide for Debian Maintainers: Chapter 1. Overview, Chapter 2. Prerequisites and Chapter 3. Tool Setups.');
    const zh = await summarize('zh-cn', [
      child('index.zh-cn.html', 'Debian 维护者指南 — 本指南在撰写过程中参考了以下几篇文档：'),
      child('ch01.zh-cn.html', 'Chapter 1. 概览——对一个包含了简单的 C 源代码的软件包进行打包。', true),
      child('pr01.zh-cn.html', '前言——如果您在某些方面算得上是有经验的 Debian 用户的话，您可能遇上过这样的情况：', true),
    ]);
    expect(zh.abstract).toMatch(/^Debian 维护者指南：/);
    expect(zh.abstract).not.toMatch(/[:：]。$|维护者指南。$/);
  });
});

describe('an index that is a table of paths', () => {
  it("is no introduction, even when its L0 is only the table's first row (bash-doc's examples/INDEX.txt)", async () => {
    // bash's examples/INDEX.txt, a table (Path, Description, X-Ref) the ingest split into parts.
    const dir = await mkdtemp(join(tmpdir(), 'cairn-index-'));
    try {
      const rows = ['./obashdb\tDeprecated sample implementation of a bash debugger\t', '', './complete\tShell completion code\t', '', './functions\tExample functions\t', './functions/autoload\tAn almost ksh-compatible \'autoload\' (no lazy load).\tksh'];
      const index = `Path\tDescription\tX-Ref\n${rows.join('\n')}\n`;
      await writeFile(join(dir, 'INDEX.txt'), index);
      const { abstract, overview } = extractiveFileSummary(await readFile(join(dir, 'INDEX.txt'), 'utf8'), 'INDEX.txt', 'text');
      const examples = await summarize('examples', [
        { ...child('INDEX.txt', abstract, true), overview },
        { ...child('INDEX.html', abstract, true), overview },
        child('complete', 'Completion function, complete and example: bash_completion, complete-examples and cdfunc - example completion function for cd.', true),
        child('functions', 'Function: autoload.v2; autoload.v4; functions and aliases to provide the beginnings of a ksh environment for bash; and others.', true),
      ]);
      expect(examples.abstract).not.toMatch(/^Path Description/);
      expect(examples.abstract).toMatch(/: complete, functions and INDEX\.$/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names its first rows in its own L0, not its header run into the first row as a sentence', () => {
    const rows = ['./obashdb\tDeprecated sample implementation of a bash debugger\t', '', './complete\tShell completion code\t', '', './functions\tExample functions\t', './misc/cshtobash\tConvert csh aliases to bash equivalents.\tcsh, xalias'];
    const { abstract, overview } = extractiveFileSummary(`Path\tDescription\tX-Ref\n${rows.join('\n')}\n`, 'INDEX.txt', 'text');
    expect(abstract).toBe('./obashdb (Deprecated sample implementation of a bash debugger), ./complete (Shell completion code), ./functions (Example functions), ./misc/cshtobash (Convert csh aliases to bash equivalents)');
    // Each row is a sentence of its own in the L1, its cross-references named by their column.
    expect(overview).toContain('./misc/cshtobash — Convert csh aliases to bash equivalents (X-Ref: csh, xalias).');
    // A paragraph that only has tabs in it is still prose.
    expect(extractiveFileSummary('Notes on the pager\tand its keys.\nPress q to quit the pager at any time.\n', 'notes.txt', 'text').abstract).toMatch(/Press q to quit/);
  });
});

describe('a folder of test data', () => {
  it("is named for the package whose tests read it, by its cases, not by its inputs' words (Go's testdata/)", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-testdata-'));
    try {
      // A test file's package doc and config snippets: what the summaries of such inputs say.
      const files: Record<string, string> = {
        'comments.input': 'package p\n\n// Package p is a test for the handling of comments.\nfunc f() {}\n',
        'comments.golden': 'package p\n\n// Package p is a test for the handling of comments.\nfunc f() {}\n',
        'declarations.input': 'package p\n\nvar a = A{Long: 1, LongLong: 1}\n',
        'declarations.golden': 'package p\n\nvar a = A{Long: 1, LongLong: 1}\n',
        'hosts.conf': '127.0.0.1 localhost\n::1 localhost ip6-localhost\n',
      };
      const children: ChildSummary[] = [];
      for (const [name, text] of Object.entries(files)) {
        await writeFile(join(dir, name), text);
        children.push(child(name, extractiveFileSummary(await readFile(join(dir, name), 'utf8'), name, 'text').abstract));
      }
      const testdata = await summarizer.summarizeDirectory({ uri: 'ctx://resources/go/printer/testdata/', name: 'testdata', children });
      expect(testdata.abstract).toBe('Test data for the tests of printer (.conf, .golden, .input files): comments, declarations, hosts.');
      // A folder inside it says where it lies; a README still says what it is.
      const nested = await summarizer.summarizeDirectory({ uri: 'ctx://resources/go/printer/testdata/fixedbugs/', name: 'fixedbugs', children: children.slice(0, 2) });
      expect(nested.abstract).toBe('Test data for the tests of printer, fixedbugs (.golden, .input files): comments.');
      const readme = await summarizer.summarizeDirectory({ uri: 'ctx://resources/go/doc/comment/testdata/', name: 'testdata', children: [...children, child('README', 'This directory contains test files (*.txt) for the comment parser.')] });
      expect(readme.abstract).toBe('This directory contains test files (*.txt) for the comment parser.');
      // Outside test data nothing changes.
      const other = await summarizer.summarizeDirectory({ uri: 'ctx://resources/go/printer/cases/', name: 'cases', children });
      expect(other.abstract).not.toMatch(/^Test data/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("a code package's L0 without a README: its package doc", () => {
  const GO_CHILDREN = [
    child('cookiejar', 'Package cookiejar implements an in-memory RFC 6265-compliant http.CookieJar.', true),
    child('internal', 'Package internal contains HTTP internals shared by net/http and net/http/httputil.', true),
    child('client.go', 'Go file: 2 structs, 1 interface, 17 functions, 15 methods. Defines: Client, RoundTripper, send'),
    child('client_test.go', 'Go file: 3 structs, 68 functions. Defines: TestClient, TestClientHead'),
    child('doc.go', 'Package http provides HTTP client and server implementations.'),
    child('server.go', 'Go file: 9 structs, 40 functions, 80 methods. Defines: Handler, ResponseWriter, Server, ListenAndServe'),
  ];

  it("Go: doc.go's doc, then its sub-packages (not internal or testdata)", async () => {
    const { abstract } = await summarize('http', GO_CHILDREN);
    expect(abstract).toBe('Package http provides HTTP client and server implementations. Folders: cookiejar.');
  });

  it('Go: a package doc in a skeleton L0, with its full stop; with no sub-packages, the names it exports, not its tests', async () => {
    const { abstract } = await summarize('mail', [
      child('example_test.go', 'Definitions: ExampleParseAddressList, ExampleReadMessage'),
      child('message.go', 'Go file: 3 type aliases, 4 structs, 11 functions, 25 methods — Package mail implements parsing of mail messages. Defines: debugT, Message, Header, Address, ReadMessage'),
    ]);
    expect(abstract).toBe('Package mail implements parsing of mail messages.');
    const only = await summarize('http', GO_CHILDREN.filter((c) => !c.is_directory));
    // doc.go's L0 word for word would tie with it in every search: the folder names what it offers.
    expect(only.abstract).toMatch(/^Package http provides HTTP client and server implementations\. Definitions: Client, RoundTripper, Handler, ResponseWriter, Server, ListenAndServe\.$/);
  });

  it('a document that opens "Package …" is no package doc', async () => {
    const { abstract } = await summarize('admin', [child('packages.txt', 'Package management on the stations is done with apt and a local mirror.'), child('users.txt', 'User accounts on the stations come from the central directory.')]);
    expect(abstract).not.toMatch(/^Package management/);
  });

  it('a folder of one document is that document: its title, then its lead', async () => {
    const { abstract } = await summarize('notes', [child('2024-05-08-storm-review.md', 'Storm review, 8 May 2024 — The storm reached the harbour at 13:56.')]);
    expect(abstract).toBe('Storm review, 8 May 2024: The storm reached the harbour at 13:56.');
  });

  it("a Go file's package doc is no folder's doc beside code in other languages", async () => {
    const { abstract } = await summarize('src', [
      child('api.ts', "The base server's HTTP API: readings in, forecasts out."),
      child('station.py', "Python module: 4 classes, 3 functions — Model of a Tidewater station's firmware: sampling and packets. Defines: Station"),
      child('uplink.go', 'Package uplink forwards station packets from the LoRa gateway to the base server.'),
    ]);
    expect(abstract).not.toMatch(/^Package uplink/);
    expect(abstract).toContain('uplink.go');
  });

  it("Python's __init__.py docstring; a README still comes first", async () => {
    const py = [child('__init__.py', 'Tide tables for the harbour stations, read from the port authority feed.'), child('feed.py', 'Python module: 2 functions. Defines: fetch, parse')];
    expect((await summarize('tides', py)).abstract).toMatch(/^Tide tables for the harbour stations, read from the port authority feed\./);
    expect((await summarize('tides', [...py, child('README.md', 'Tides — Reads the harbour tide tables every hour.')])).abstract).toBe('Reads the harbour tide tables every hour.');
  });
});

describe('a folder of code packages', () => {
  it("names its packages (Go's src/encoding), not the words of their L0s' template", async () => {
    const { abstract } = await summarize('encoding', [
      child('ascii85', 'Package ascii85 implements the ascii85 data encoding as used in the btoa tool and Adobe\'s PostScript and PDF document formats.', true),
      child('base64', 'Package base64 implements base64 encoding as specified by RFC 4648.', true),
      child('json', 'Package json implements encoding and decoding of JSON as defined in RFC 7159.', true),
      child('encoding.go', 'Package encoding defines interfaces shared by other packages that convert data to and from byte-level and textual representations.'),
    ]);
    // Its own package doc first, then its sub-packages.
    expect(abstract).toBe('Package encoding defines interfaces shared by other packages that convert data to and from byte-level and textual representations. Folders: ascii85, base64, json.');
    const { abstract: go } = await summarize('go', [child('ast', 'Package ast declares the types used to represent syntax trees for Go packages.', true), child('build', 'Package build gathers information about Go packages.', true), child('testdata', 'Test data.', true)]);
    expect(go).toBe('Packages: ast, build.');
    const { abstract: src } = await summarize('src', [child('go', go, true), child('net', 'Package net provides a portable interface for network I/O.', true)]);
    expect(src).toBe('Packages: go, net.');
  });
});

describe("a package's lines in its parent's L1", () => {
  it("show its code before its tests (Go's net/mail: message.go, then example_test.go)", () => {
    const mail = summarizeDirectory(
      [
        { name: 'example_test.go', abstract: 'Definitions: ExampleParseAddressList, ExampleReadMessage', category: 'code', isDirectory: false },
        { name: 'message.go', abstract: 'Go file: 4 structs, 11 functions — Package mail implements parsing of mail messages. Defines: Message, Header, Address', category: 'code', isDirectory: false },
      ],
      { dirName: 'mail' },
    );
    const net = summarizeDirectory([{ name: 'mail', abstract: mail.abstract, overview: mail.overview, category: 'directory', isDirectory: true }], { dirName: 'net' });
    const nested = net.overview.split('\n').filter((line) => line.startsWith('  - '));
    expect(nested[0]).toMatch(/^ {2}- \*\*message\.go\*\*/);
  });
});

describe('a document split into parts, in its folder', () => {
  it('is listed with the files when its meta says so, though its name has no extension (a script split at its comments)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cairn-document-'));
    try {
      const fs = await ContextFS.open(dir);
      const meta = (uri: string, abstract: string): NodeMeta => ({ uri, kind: 'file', context_type: 'resource', category: 'document', abstract, overview: abstract, summary_status: 'done', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' });
      const base = 'ctx://resources/scripts/';
      const files: [string, string][] = [
        [`${base}shprompt/01-shprompt-give-a-prompt.txt`, 'shprompt — give a prompt and get an answer satisfying certain criteria'],
        [`${base}shprompt/02-while-do-case.txt`, "use `fn' and eval so that bash will do tilde expansion for me"],
        [`${base}bcalc`, 'bcalc - a coproc example that uses bc to evaluate floating point expressions'],
        [`${base}center`, 'center - center a group of lines'],
      ];
      for (const [uri, abstract] of files) await fs.writeFile(uri, abstract, meta(uri, abstract));
      // (As the ingest writes a split document's folder: its meta marks it a document.)
      await fs.writeMeta(`${base}shprompt/`, { uri: `${base}shprompt/`, kind: 'dir', context_type: 'resource', document: true, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' } as NodeMeta);
      const handler = new DirectoryEventHandler({ fs, summarizer: extractiveSummarizer(), fileFallback: extractiveSummarizer(), index: noopIndex, logger: memoryLogger(), clock: { now: () => new Date('2026-01-01T00:00:00Z') }, emit: () => {} });
      await handler.processDirectoryEvent(base);
      const overview = await fs.read(base, 1);
      expect(overview).not.toContain('## Folders');
      expect(overview).toMatch(/## Files\n- \*\*shprompt\/\*\*/);
      expect(overview).toContain('- **bcalc**');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("is named in its folder's L0 by its own lead, not by the titles of its other parts", async () => {
    const { abstract } = await summarize('bash-doc', [
      // (A first part cut at its room ends in "…", not in a full stop.)
      child('bash.html', 'BASH — bash - GNU Bourne-Again SHell, the shell of the GNU system… Then: OPTIONS, ARGUMENTS, INVOCATION…', true),
      child('bashref.html', 'Bash Reference Manual — This text is a brief description of the features that are present in the Bash shell.', true),
      child('examples', 'Bash, example and function: bash-completion, complete, functions, misc and scripts.', true),
    ]);
    expect(abstract).toContain('bash - GNU Bourne-Again SHell, the shell of the GNU system…; Bash Reference Manual');
    expect(abstract).not.toMatch(/Then:|OPTIONS/);
  });

  it('ends the sentence of a first part that is a title and a name line before the titles of the others', async () => {
    const { abstract } = await summarize('bash.html', [
      child('01-bash.txt', 'BASH — bash - GNU Bourne-Again SHell'),
      child('02-options.txt', 'OPTIONS — All of the single-character shell options can be used when the shell is invoked.'),
      child('03-arguments.txt', 'ARGUMENTS — If arguments remain after option processing, the first is a file of commands.'),
    ]);
    expect(abstract).toBe('BASH — bash - GNU Bourne-Again SHell. Then: OPTIONS and ARGUMENTS.');
  });
});

describe("a folder of code without a README (git's contrib)", () => {
  it('is code, not documents, and no file extension or defined name is its subject', async () => {
    // contrib/buildsystems/Generators: three Perl modules whose L0s list what they define.
    const perl = await summarize('Generators', [
      child('QMake.pm', 'Definitions: generate, createLibProject, createAppProject, createGlueProject', false, 'code'),
      child('Vcproj.pm', 'Definitions: generate, createLibProject, createAppProject, createGlueProject', false, 'code'),
      child('Vcxproj.pm', 'Definitions: generate, createProject, createGlueProject', false, 'code'),
    ]);
    expect(perl.abstract).toBe('Code: QMake.pm, Vcproj.pm and Vcxproj.pm.');
    const keyTermsOf = (overview: string) => overview.split('\n').find((line) => line.startsWith('**Key terms:**')) ?? '';
    expect(keyTermsOf(perl.overview)).not.toMatch(/Definitions|\bpm\b/);
    // contrib/credential/gnome-keyring: a C skeleton (no doc of its own) and a Makefile whose L0 is its name.
    const helper = await summarize('gnome-keyring', [
      child('git-credential-gnome-keyring.c', 'C file: 2 structs, 15 functions. Defines: credential, credential_operation, keyring_get', false, 'code'),
      child('Makefile', 'Makefile', false, 'code'),
    ]);
    expect(helper.abstract).toBe('Code: git-credential-gnome-keyring.c and Makefile.');
    const keyTerms = keyTermsOf(helper.overview);
    expect(keyTerms).toMatch(/credential_operation/);
    expect(keyTerms).not.toMatch(/\b(?:structs?|functions|Defines|file|Makefile)\b/);
    // Their parent: the children's "Code:" label is no topic of it; with no subject of their own, they are folders.
    const parent = await summarize('credential', [
      child('gnome-keyring', helper.abstract, true),
      child('libsecret', 'Code: git-credential-libsecret.c and Makefile.', true),
      child('wincred', 'Code: git-credential-wincred.c and Makefile.', true),
    ]);
    expect(parent.abstract).toBe('Folders: gnome-keyring, libsecret and wincred.');
  });
});
