/**
 * settings:get, settings:set, settings:test and llm:stats, spread into the engine's handlers.
 * A change to the settings rebuilds the LLM at once; runs already going finish with theirs.
 */
import type { CommandHandlers } from '../command-handlers.js';
import type { LlmRuntime } from './llm-runtime.js';
import type { SettingsStore } from './settings-store.js';

export function settingsHandlers(deps: { store: SettingsStore; runtime: LlmRuntime }): Pick<CommandHandlers, 'settings:get' | 'settings:set' | 'settings:test' | 'llm:stats'> {
  const { store, runtime } = deps;
  const view = () => store.view(runtime.active ? 'llm' : 'extractive');
  return {
    'settings:get': async () => view(),
    'settings:set': async (request) => {
      if (request.memory === undefined || request.llm !== undefined || request.apiKey !== undefined) await store.update(request.llm ?? {}, request.apiKey);
      if (request.memory !== undefined) await store.updateMemory(request.memory);
      runtime.apply(store.current(), store.apiKey());
      return view();
    },
    'settings:test': async (request, ctx) => runtime.test({ ...store.current(), ...(request.llm ?? {}) }, request.apiKey ?? store.apiKey(), ctx.signal),
    'llm:stats': async () => runtime.stats(),
  };
}
