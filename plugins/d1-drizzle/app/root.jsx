import { Links, Meta, Outlet, Scripts } from 'react-router';

export const links = () => [{ rel: 'stylesheet', href: '/site.css' }];

export function Layout({ children }) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <Scripts />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary({ error }) {
  return <h1>{error?.status ?? 500} {error?.statusText ?? 'Error'}</h1>;
}
