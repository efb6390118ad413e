import { z } from 'zod';
import { SummaryStatus } from './node.js';

/** A skill under ctx://agent/skills/{name}/, as skills:list and skills:read give it (main/engine/skills). */
export const SkillSummary = z.object({
  name: z.string(),
  uri: z.string(),
  /** The SKILL.md's front-matter `description:`, else the skill's L0 once summarized, else null. */
  description: z.string().nullable(),
  /** Where the SKILL.md's text came from: a folder (with its helper files) or the SKILL.md alone. */
  source: z.string().nullable(),
  summary_status: SummaryStatus.optional(),
});
export type SkillSummary = z.infer<typeof SkillSummary>;
