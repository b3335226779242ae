import { mount } from 'svelte';
import App from './App.svelte';
import './app.css';
import { Session } from './lib/core/session.svelte';
import { tauriBackend } from './lib/core/backend';

const session = new Session(tauriBackend);
session.launch.mark('script');
const target = document.getElementById('app');
if (target) mount(App, { target, props: { session } });
session.launch.mark('mounted');
void session.start();
