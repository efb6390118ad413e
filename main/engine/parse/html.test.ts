import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from './html.js';

const filler = 'The station firmware samples every sensor once a second and keeps a rolling window. '.repeat(12);

function page(article: string, title = 'Install — Tidewater'): string {
  return `<!doctype html><html><head><title>${title}</title></head><body>
    <header><nav class="navbar"><a href="/">Home</a> <a href="/docs">Docs</a> <a href="/blog">Blog</a></nav></header>
    <main><article>${article}</article>
    <aside class="sidebar"><h3>Related pages</h3><ul><li><a href="/x">Elsewhere</a></li></ul></aside></main>
    <footer>Copyright 2024 Tidewater footer text</footer></body></html>`;
}

describe('htmlToMarkdown', () => {
  it('keeps the article and drops navigation, sidebars and footers', () => {
    const { markdown, title, warnings } = htmlToMarkdown(page(`<h1>Install</h1><p>${filler}</p><h2>Check</h2><p>${filler}</p>`));
    expect(title).toBe('Install');
    expect(warnings).toEqual([]);
    expect(markdown.startsWith('# Install\n\n')).toBe(true);
    expect(markdown).toContain('\n## Check\n');
    for (const boilerplate of ['Home', 'Blog', 'Related pages', 'Elsewhere', 'footer text']) expect(markdown).not.toContain(boilerplate);
  });

  it('keeps the language of code blocks from the usual class conventions', () => {
    const { markdown } = htmlToMarkdown(
      page(`<h1>Code</h1><p>${filler}</p>
        <pre><code class="language-rust">fn main() {}</code></pre>
        <div class="highlight-python3 notranslate"><div class="highlight"><pre><span class="n">x</span> = 1</pre></div></div>
        <div class="highlight highlight-source-js"><pre>let s = \`a\`;\n\`\`\`\n</pre></div>
        <pre class="sourceCode haskell">main = pure ()</pre>
        <pre data-lang="go">package main</pre>
        <div class="highlight-none"><pre>no language</pre></div>`),
    );
    expect(markdown).toContain('```rust\nfn main() {}\n```');
    expect(markdown).toContain('```python\nx = 1\n```');
    // A fence inside the code gets a longer fence around it.
    expect(markdown).toContain('````javascript\nlet s = `a`;\n```\n````');
    expect(markdown).toContain('```haskell\nmain = pure ()\n```');
    expect(markdown).toContain('```go\npackage main\n```');
    expect(markdown).toContain('```\nno language\n```');
  });

  it('writes tables as GFM pipe tables, with captions, spans and escaped pipes', () => {
    const { markdown } = htmlToMarkdown(
      page(`<h1>Codes</h1><p>${filler}</p>
        <table><caption>Type codes</caption>
          <thead><tr><th>Code</th><th colspan="2">C type | size</th></tr></thead>
          <tbody><tr><td><code>'b'</code></td><td>signed char</td><td>1</td></tr>
          <tr><td>'h'</td><td><p>signed</p><p>short</p></td><td>2</td></tr></tbody>
        </table>`),
    );
    expect(markdown).toContain(
      ['Type codes', '', "| Code | C type \\| size |  |", '| --- | --- | --- |', "| `'b'` | signed char | 1 |", "| 'h' | signed short | 2 |"].join('\n'),
    );
  });

  it('uses the first row as the header of a table without <thead>', () => {
    const { markdown } = htmlToMarkdown(page(`<h1>T</h1><p>${filler}</p><table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>`));
    expect(markdown).toContain('| a | b |\n| --- | --- |\n| 1 | 2 |');
  });

  it('drops permalink anchors from headings and keeps lists', () => {
    const { markdown } = htmlToMarkdown(
      page(`<h1>Guide<a class="headerlink" href="#guide">¶</a></h1><p>${filler}</p><h2>Steps<a href="#steps">#</a></h2><ol start="3"><li>first</li><li>second<br>line</li></ol><ul><li>dot</li></ul>`),
    );
    expect(markdown).not.toContain('¶');
    expect(markdown).toContain('## Steps\n');
    expect(markdown).toContain('3. first\n4. second  \n   line');
    expect(markdown).toContain('- dot');
  });

  it('adds the title as the level-1 heading when Readability dropped it', () => {
    const { markdown } = htmlToMarkdown(page(`<h2>Basic usage</h2><p>${filler}</p>`, 'json — JSON encoder'));
    expect(markdown.startsWith('# json — JSON encoder\n\n## Basic usage')).toBe(true);
  });

  it('falls back to the body without navigation when there is no article', () => {
    const { markdown, warnings } = htmlToMarkdown('<html><head><title>Empty</title></head><body><nav>Menu</nav></body></html>');
    expect(warnings).toEqual(['no article found: converted the whole page body without its navigation']);
    expect(markdown).toBe('# Empty\n');
  });

  it('reads a bare fragment without <html> or <body>', () => {
    expect(htmlToMarkdown('<title>T</title><nav>menu</nav><main><h1>Hello</h1><p>World</p></main>')).toEqual({ markdown: '# Hello\n\nWorld\n', title: 'Hello', warnings: [] });
    expect(htmlToMarkdown('<p>Just a <b>fragment</b></p>').markdown).toBe('Just a **fragment**\n');
  });
});
