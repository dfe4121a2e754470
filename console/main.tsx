/** The console's entry point: bundled by lib/console/build.ts, served at /console by lib/console/site.ts. */
import { render } from 'preact';
import { App } from './app.js';
import './style.css';

render(<App />, document.getElementById('app')!);
