// The browser's half: hydrates the server's HTML with the same props.
import { hydrateRoot } from 'react-dom/client';
import { App } from './App.jsx';

const { name } = window.__PROPS__;
const words = document.getElementById('greeting').textContent;
hydrateRoot(document, <App name={name} words={words} />);
