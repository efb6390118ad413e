/**
 * The Explorer's agent scope lists the skills with their descriptions, and a root's details show
 * why it was added. The skills are parsed by the contract's SkillSummary, as skills:list answers
 * them (the engine side is test/engine/skills.test.ts).
 */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { SkillSummary } from '../../../shared/types/skill';
import { translate, type MessageKey } from '../../i18n';
import { AddedReason } from './AddedReason';
import { SkillItems } from './SkillList';

const en = (key: MessageKey, params?: Record<string, string | number>) => translate('en', key, params);
const zh = (key: MessageKey, params?: Record<string, string | number>) => translate('zh', key, params);
const skills = [
  { name: 'code-review', uri: 'ctx://agent/skills/code-review/', description: 'Review a change for <risky> edits first.', source: '/skills/review', summary_status: 'done' },
  { name: 'notes', uri: 'ctx://agent/skills/notes/', description: null, source: '/skills/notes/SKILL.md', summary_status: 'owed' },
].map((s) => SkillSummary.parse(s));

describe('Explorer: skills and reasons', () => {
  it('lists each skill with its description (escaped), or says it has none yet, and marks the selected one', () => {
    const html = renderToStaticMarkup(<SkillItems skills={skills} selected="ctx://agent/skills/code-review/" onOpen={() => undefined} t={en} />);
    expect(html).toContain('Skills (2)');
    expect(html).toMatch(/class="skill selected"[^>]*data-uri="ctx:\/\/agent\/skills\/code-review\/"><span class="skill-name">code-review<\/span><span class="skill-description muted">Review a change for &lt;risky&gt; edits first\.<\/span>/);
    expect(html).toMatch(/class="skill"[^>]*data-uri="ctx:\/\/agent\/skills\/notes\/"><span class="skill-name">notes<\/span><span class="skill-description muted">No description yet \(not summarized\)\.<\/span>/);
    const none = renderToStaticMarkup(<SkillItems skills={[]} selected={null} onOpen={() => undefined} t={zh} />);
    expect(none).toContain('技能（0）');
    expect(none).toContain('cairn skills add');
  });

  it("shows a root's reason", () => {
    const html = renderToStaticMarkup(<AddedReason reason="the team asked for it" t={en} />);
    expect(html).toContain('<h3 id="added-reason-title">Why it was added</h3><p>the team asked for it</p>');
  });
});
