/** The theme in force: the user's choice, or the OS preference when the choice is "system". */
import { useSyncExternalStore } from 'react';
import { useApp } from './stores/stores-context';

const query = '(prefers-color-scheme: dark)';

function subscribe(onChange: () => void): () => void {
  const media = window.matchMedia(query);
  media.addEventListener('change', onChange);
  return () => media.removeEventListener('change', onChange);
}

export function useResolvedTheme(): 'light' | 'dark' {
  const choice = useApp((state) => state.theme);
  const osDark = useSyncExternalStore(subscribe, () => window.matchMedia(query).matches);
  if (choice === 'system') return osDark ? 'dark' : 'light';
  return choice;
}
