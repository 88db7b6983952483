import { createElement } from 'react';
import { Outlet } from 'react-router';

// The app has no pages: its one route is a resource route (no default export), answered as its Response.
export default function App() {
  return createElement(Outlet);
}
