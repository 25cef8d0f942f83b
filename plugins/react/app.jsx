// react: React 19 renderToString, the Greeting + Lorem page of Piscina's SSR example, with 200 cards.
// Run: ssr build plugins/react/app.jsx -o target/plugins/react.wasm && ssr render target/plugins/react.wasm '/?name=Ada'
import React from 'react';
import { renderToString } from 'react-dom/server';

const LOREM = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.';

function Greeting({ name }) {
  return <h1 className="greeting">Hello, {name}!</h1>;
}

function Lorem({ index }) {
  return (
    <div className="card" data-index={index}>
      <h2>Card {index}</h2>
      <p>{LOREM}</p>
    </div>
  );
}

function App({ name, count }) {
  const cards = [];
  for (let i = 0; i < count; i++) cards.push(<Lorem key={i} index={i} />);
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <title>{`React SSR for ${name}`}</title>
      </head>
      <body>
        <Greeting name={name} />
        <main>{cards}</main>
      </body>
    </html>
  );
}

/** @type {import('@ssr/types').Render} */
export function render(request) {
  const name = request.query.name ?? 'world';
  const count = Math.min(Number(request.query.count ?? 200) || 0, 2000);
  return '<!DOCTYPE html>' + renderToString(<App name={name} count={count} />);
}
