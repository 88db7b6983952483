import { tanstackStart } from '@tanstack/react-start/plugin/vite';
import viteReact from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// As a new TanStack Start project has it: the Start plugin, then React's.
export default defineConfig({ plugins: [tanstackStart(), viteReact()] });
