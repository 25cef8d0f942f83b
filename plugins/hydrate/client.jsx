// The browser's half: hydrates the server's HTML with the same props.
import { hydrateRoot } from 'react-dom/client';
import { App } from './App.jsx';

const props = JSON.parse(document.getElementById('props').textContent);
hydrateRoot(document.getElementById('root'), <App {...props} />);
