import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@xyflow/react/dist/style.css';
// The shared styles, before App: each view and component imports its own file, which the bundle
// then places after these, so a view's rule wins a tie with a shared one.
import './styles/tokens.css';
import './styles/base.css';
import './styles/components.css';
import { App } from './App';
import { createClient } from './api/client';
import { preferredLocale } from './i18n';
import { connectStores, createStores } from './stores';
import { StoresProvider } from './stores/stores-context';

/** localStorage, or null where the page may not use it. */
function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

const client = createClient();
const stores = createStores(client, preferredLocale(navigator.languages));
stores.app.getState().init(storage());
connectStores(stores);

const container = document.getElementById('root');
if (!container) throw new Error('Cairn: index.html has no #root element');
createRoot(container).render(
  <StrictMode>
    <StoresProvider stores={stores}>
      <App />
    </StoresProvider>
  </StrictMode>,
);
