/**
 * The agent scope's skills (ctx://agent/skills/{name}/) above its tree, each with its one-line
 * description (skills:list: the SKILL.md's front matter, else its L0); a click opens the skill in
 * the tree. Listed again whenever the tree's listings are (after an ingest, a summary run, Refresh).
 */
import { useEffect, useState } from 'react';
import type { SkillSummary } from '../../../shared/types/skill';
import { useExplorer, useStores } from '../../stores/stores-context';
import { useT, type Translate } from '../../use-t';
import './skill-list.css';

const SKILLS_ROOT = 'ctx://agent/skills/';

export function SkillList() {
  const t = useT();
  const { client } = useStores();
  const reveal = useExplorer((s) => s.reveal);
  const selected = useExplorer((s) => s.selected);
  // New listings of the scope root or of skills/ mean the tree changed: list the skills again.
  const rootListing = useExplorer((s) => s.listings['ctx://agent/']);
  const skillsListing = useExplorer((s) => s.listings[SKILLS_ROOT]);
  const [skills, setSkills] = useState<SkillSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    client.call('skills:list', {}).then(
      (result) => {
        if (!live) return;
        setSkills(result.skills);
        setError(null);
      },
      (failure: unknown) => {
        if (live) setError(String((failure as Error)?.message ?? failure));
      },
    );
    return () => {
      live = false;
    };
  }, [client, rootListing, skillsListing]);

  if (error) return <p className="banner banner-error skill-list-error">{error}</p>;
  if (skills === null) return null;
  return <SkillItems skills={skills} selected={selected} onOpen={(uri) => void reveal(uri)} t={t} />;
}

/** The list itself: a skill's name over its description, the one selected in the tree marked. */
export function SkillItems({ skills, selected, onOpen, t }: { skills: SkillSummary[]; selected: string | null; onOpen(uri: string): void; t: Translate }) {
  return (
    <section className="skill-list" aria-labelledby="skills-title" data-testid="skill-list">
      <h3 id="skills-title">{t('explorer.skills.title', { count: skills.length })}</h3>
      {skills.length === 0 ? (
        <p className="muted">{t('explorer.skills.none')}</p>
      ) : (
        <ul>
          {skills.map((skill) => (
            <li key={skill.uri}>
              <button type="button" className={selected === skill.uri ? 'skill selected' : 'skill'} onClick={() => onOpen(skill.uri)} data-testid="skill-item" data-uri={skill.uri}>
                <span className="skill-name">{skill.name}</span>
                <span className="skill-description muted">{skill.description ?? t('explorer.skills.noDescription')}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
