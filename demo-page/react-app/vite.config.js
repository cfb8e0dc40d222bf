import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  // agui-client-tools is linked from ../../js-shim (file:), whose own folder has no React: one
  // copy, this app's. (An install from the registry needs no such line.)
  resolve: { dedupe: ['react', 'react-dom'] },
  // `npm run dev` next to `npm start` in demo-page (the agent on 8787).
  server: { proxy: { '/agent': 'http://127.0.0.1:8787' } },
  build: { target: 'es2022' },
});
