import { mount } from 'svelte';
import App from './App.svelte';
import './app.css';
import { Session } from './lib/core/session.svelte';
import { tauriBackend } from './lib/core/backend';

const session = new Session(tauriBackend);
const target = document.getElementById('app');
if (target) mount(App, { target, props: { session } });
void session.start();
