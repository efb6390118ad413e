/**
 * The offline summarizer on real documentation (Debian's git, bash, CMake and debmake docs in
 * test/fixtures/extractive/debian): a file's L0 is its title and the sentence that says what it
 * is for, with boilerplate and markup left out, and its overview has no doubled bullets.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../../main/engine/parse/html.js';
import { extractiveSummarizer } from '../../main/engine/summarize/extractive-summarizer.js';

const DEBIAN = join(import.meta.dirname, '../fixtures/extractive/debian');
const summarizer = extractiveSummarizer();

/** Summarizes a fixture as the DAG does: its content (HTML converted to Markdown first, as the parser does) and its source format. */
async function summarize(path: string, format: string) {
  const raw = readFileSync(join(DEBIAN, path), 'utf8');
  const text = format === 'html' ? htmlToMarkdown(raw).markdown : raw;
  return summarizer.summarizeFile({ uri: `ctx://resources/debian/${path}`, name: path.split('/').pop() as string, text, format });
}

/** Markup a reader should never see in an L0. */
const MARKUP = /={3,}|-{3,}|\[\]\(|!\[|\]\(|<\/?[a-z][^>]*>|\*\*|linkgit:|\\_/;

describe('file L0s on real documentation', () => {
  it('release notes: the title and the first sentence of prose, without the underline', async () => {
    const { abstract } = await summarize('git/RelNotes/2.39.5.txt', 'text');
    expect(abstract).toBe(
      'Git v2.39.5 Release Notes — In preparing security fixes for four CVEs, we made overly aggressive "defense in depth" changes that broke legitimate use cases like \'git lfs\' and \'git annex.\'',
    );
  });

  it('release notes that open with a list: the title and its headings, not one of the fixes', async () => {
    const { abstract, overview } = await summarize('git/RelNotes/1.5.0.1.txt', 'text');
    expect(abstract).toBe('GIT v1.5.0.1 Release Notes: Fixes since v1.5.0');
    // Each wrapped item is one bullet: no "- - git-add ..." and no item run into the next.
    expect(overview).not.toMatch(/^- [-*+] /m);
    for (const line of overview.split('\n').filter((l) => l.startsWith('- '))) expect(line.slice(2)).not.toMatch(/ - git-/);
  });

  it('a README with badges and link references: its title and first paragraph, no badge left', async () => {
    const { abstract, overview } = await summarize('git/README.md', 'markdown');
    expect(abstract).toBe(
      'Git - fast, scalable, distributed revision control system — Git is a fast, scalable, distributed revision control system with an unusually rich command set that provides both high-level operations and full access to internals.',
    );
    expect(`${abstract}\n${overview}`).not.toMatch(/\[\]\(|github\.com\/git\/git\/actions|\[INSTALL\]: INSTALL/);
  });

  it('plain text with a setext title and shell prompts: the title is the underlined line, not "# apt-get"', async () => {
    const { abstract } = await summarize('git/README.source', 'text');
    expect(abstract).toBe("Git sources for Debian — The git Debian package sources are available through git, and through 'apt-get source git'.");
  });

  it('an AsciiDoc manual page: its name line says what the command does', async () => {
    const { abstract } = await summarize('git-doc/git-mv.txt', 'text');
    expect(abstract).toBe('git-mv(1) — git-mv - Move or rename a file, a directory, or a symlink');
  });

  it('a mail turned into a howto: its Abstract field, not its Date and From lines', async () => {
    const { abstract } = await summarize('git-doc/howto/revert-a-faulty-merge.txt', 'text');
    expect(abstract.startsWith('How to revert a faulty merge — Sometimes a branch that was already merged to the mainline is later found to be faulty.')).toBe(true);
    expect(abstract).not.toMatch(/Date:|From:|Torvalds/);
  });

  it("meeting notes: a paragraph of what happened, not the 'Present:' line", async () => {
    const text = readFileSync(join(import.meta.dirname, '../../assets/sample/notes/2024-05-08-storm-review.md'), 'utf8');
    const { abstract } = await summarizer.summarizeFile({ uri: 'ctx://resources/sample/notes/2024-05-08-storm-review.md', name: '2024-05-08-storm-review.md', text, format: 'markdown' });
    // (Its first account, "The storm reached the harbour at 13:56.", is one short sentence: a lead
    // that short is passed over; taking it with the next lost two test questions of eval:routing.)
    expect(abstract.startsWith('Storm review, 8 May 2024 — The masts of stations 10–12 bent in the gusts')).toBe(true);
    expect(abstract).not.toMatch(/Present:/);
  });

  it("an AsciiDoc include: past its comments and preprocessor lines (git-doc's rev-list-description.txt, signoff-option.txt)", async () => {
    const description = (await summarize('git-doc/rev-list-description.txt', 'text')).abstract;
    expect(description.startsWith('List commits that are reachable by following the parent links from the given commit(s)')).toBe(true);
    const signoff = (await summarize('git-doc/signoff-option.txt', 'text')).abstract;
    expect(signoff).toMatch(/Add a Signed-off-by trailer by the committer/);
    for (const abstract of [description, signoff]) expect(abstract).not.toMatch(/ifn?def::|endif::|(^|\s)\/\/\s/);
    const comment = await summarizer.summarizeFile({ uri: 'ctx://resources/d/opts.txt', name: 'opts.txt', text: "// Please don't remove this comment as asciidoc behaves badly when\n// the first non-empty line is ifdef/ifndef.\n\n////\nA block comment.\n////\n\nGenerate plain patches without any diffstats, for the reviewers of the series.\n", format: 'text' });
    expect(comment.abstract).toBe('Generate plain patches without any diffstats, for the reviewers of the series.');
  });

  it('a Debian copyright file says it holds the licence terms, not its first notice', async () => {
    const { abstract } = await summarize('bash-doc/copyright', 'text');
    expect(abstract).toMatch(/^Copyright and licence terms: GPL/);
    expect(abstract).not.toMatch(/\(C\)|Free Software Foundation/);
  });

  it('a script: its header comment, without the licence paragraph or the mail headers above it', async () => {
    expect((await summarize('bash-doc/examples/scripts/bcalc', 'text')).abstract).toBe('bcalc - a coproc example that uses bc to evaluate floating point expressions');
    const basename = (await summarize('bash-doc/examples/functions/basename', 'text')).abstract;
    expect(basename.startsWith('A replacement for basename(1).')).toBe(true);
    expect(basename).not.toMatch(/Date:|friedman@|local path/);
  });

  it('an HTML reference page: its title without the site suffix, and the purpose after the table of contents', async () => {
    const { abstract } = await summarize('cmake-doc/command/add_executable.html', 'html');
    expect(abstract).toBe('add_executable — Add an executable to the project using the specified source files.');
  });

  it('a Chinese HTML chapter: Chinese title and lead, joined the Chinese way', async () => {
    const { abstract } = await summarize('debmake-doc/ch01.zh-cn.html', 'html');
    expect(abstract.startsWith('Chapter 1. 概览——对 package-1.0.tar.gz')).toBe(true);
    expect(abstract).toMatch(/使用 debmake 命令进行。/);
  });

  it('a title cut from its own first words (as memories are titled) is not repeated; a one-word title is kept', async () => {
    const memory = await summarizer.summarizeFile({ uri: 'ctx://user/memories/event/m.md', name: 'm.md', text: '# Deploying to staging tomorrow morning, and production on Fr…\n\nDeploying to staging tomorrow morning, and production on Friday if staging looks fine.\n', format: 'markdown' });
    expect(memory.abstract).toBe('Deploying to staging tomorrow morning, and production on Friday if staging looks fine.');
    const readme = await summarizer.summarizeFile({ uri: 'ctx://resources/sample/README.md', name: 'README.md', text: '# Tidewater\n\nTidewater is a small weather-station network for a harbour.\n', format: 'markdown' });
    expect(readme.abstract).toBe('Tidewater — Tidewater is a small weather-station network for a harbour.');
  });

  it('no L0 carries markup, notices or navigation', async () => {
    const files: [string, string][] = [
      ['git/RelNotes/2.39.5.txt', 'text'],
      ['git/RelNotes/1.5.0.1.txt', 'text'],
      ['git/README.md', 'markdown'],
      ['git/README.source', 'text'],
      ['git-doc/git-mv.txt', 'text'],
      ['git-doc/howto/revert-a-faulty-merge.txt', 'text'],
      ['bash-doc/examples/scripts/bcalc', 'text'],
      ['cmake-doc/command/add_executable.html', 'html'],
      ['debmake-doc/ch01.zh-cn.html', 'html'],
    ];
    for (const [path, format] of files) {
      const { abstract } = await summarize(path, format);
      expect(abstract, path).not.toMatch(MARKUP);
      expect(abstract, path).not.toMatch(/copyright \(c\)|all rights reserved|licen[cs]e|^contents\b|CMake 3\.25\.1 Documentation/i);
    }
  });
});
