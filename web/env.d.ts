// Style sheets imported by the page's script: esbuild gathers them into explorer.css.
declare module "*.css";
