// preact: Preact with hooks (useState, useMemo, useContext) through preact-render-to-string.
// Run: ssr build plugins/preact/app.jsx -o target/plugins/preact.wasm && ssr render target/plugins/preact.wasm '/todo?filter=open'
/** @jsxRuntime automatic */
/** @jsxImportSource preact */
import { createContext } from 'preact';
import { useContext, useMemo, useState } from 'preact/hooks';
import { renderToString } from 'preact-render-to-string';

const Theme = createContext('light');

const TODOS = Array.from({ length: 50 }, (_, i) => ({ id: i + 1, text: `Task number ${i + 1}`, done: i % 3 === 0 }));

function Todo({ todo }) {
  const theme = useContext(Theme);
  return <li class={`${theme} ${todo.done ? 'done' : 'open'}`}>{todo.text}</li>;
}

function TodoList({ filter }) {
  const [todos] = useState(TODOS);
  const visible = useMemo(
    () => todos.filter((t) => filter === 'all' || (filter === 'done' ? t.done : !t.done)),
    [todos, filter],
  );
  return (
    <section>
      <h1>{visible.length} {filter} tasks</h1>
      <ul>{visible.map((t) => <Todo key={t.id} todo={t} />)}</ul>
    </section>
  );
}

/** @type {import('@ssr/types').Render} */
export default function render(request) {
  const filter = ['all', 'done', 'open'].includes(request.query.filter) ? request.query.filter : 'all';
  const html = renderToString(
    <Theme.Provider value={request.query.theme === 'dark' ? 'dark' : 'light'}>
      <TodoList filter={filter} />
    </Theme.Provider>,
  );
  return {
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8', 'x-rendered-by': 'preact' },
    body: `<!doctype html><html><body>${html}</body></html>`,
  };
}
