import { mount } from "svelte";
import "../styles/base.css";
import "./settings.css";
import { page } from "../lib/page.svelte.ts";
import App from "./App.svelte";

page.install();
const target = document.getElementById("app");
if (!target) throw new Error("the page has no #app element");
mount(App, { target });
