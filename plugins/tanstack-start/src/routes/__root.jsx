import { HeadContent, Outlet, Scripts, createRootRoute, useLocation } from '@tanstack/react-router';

export const Route = createRootRoute({
  head: () => ({ meta: [{ charSet: 'utf-8' }], links: [{ rel: 'stylesheet', href: '/site.css' }] }),
  component: Root,
  notFoundComponent: NotFound,
});

function Root() {
  return (
    <html lang="en">
      <head>
        <HeadContent />
      </head>
      <body>
        <Outlet />
        <Scripts />
      </body>
    </html>
  );
}

function NotFound() {
  return <p>no page at {useLocation().pathname}</p>;
}
