import { index, route } from '@react-router/dev/routes';

export default [
  index('routes/home.jsx'),
  route('login', 'routes/login.jsx'),
  route('slow', 'routes/slow.jsx'),
  route('api/square', 'routes/api.square.js'),
];
