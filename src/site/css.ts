/** The reader site's one stylesheet (served at /site/assets/site.css, cacheable, no inline styles anywhere). */
export const SITE_CSS = `
:root{--fg:#1f2328;--muted:#57606a;--bg:#fff;--soft:#f6f8fa;--line:#d0d7de;--link:#0a58ca;--accent:#0a58ca;--accent-fg:#fff;color-scheme:light}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:17px/1.65 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",Ubuntu,Cantarell,"Helvetica Neue",Arial,sans-serif}
a{color:var(--link);text-underline-offset:.15em}
a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-9999px;top:0;background:var(--bg);padding:.5rem 1rem}
.skip:focus{left:1rem;z-index:10}
.site-header{display:flex;flex-wrap:wrap;align-items:center;gap:1rem;justify-content:space-between;padding:.75rem 1.5rem;border-bottom:1px solid var(--line)}
.brand{display:flex;align-items:center;gap:.6rem;font-weight:650;font-size:1.1rem;color:var(--fg);text-decoration:none}
.brand img{height:32px;width:auto;max-width:160px;object-fit:contain}
.cta{display:inline-block;padding:.4rem .9rem;border-radius:6px;background:var(--accent);color:var(--accent-fg);text-decoration:none;font-weight:600}
.layout{display:grid;grid-template-columns:minmax(200px,260px) minmax(0,1fr);gap:2.5rem;max-width:1120px;margin:0 auto;padding:1.5rem}
@media (max-width:760px){.layout{grid-template-columns:1fr}.site-nav{border-right:0;border-bottom:1px solid var(--line);padding-bottom:1rem}}
.site-nav{font-size:.95rem;border-right:1px solid var(--line);padding-right:1rem}
.site-nav h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:.25rem 0 .5rem}
.site-nav ul{list-style:none;margin:0;padding-left:.9rem}
.site-nav>ul{padding-left:0}
.site-nav li{margin:.15rem 0}
.site-nav a{display:block;padding:.15rem .4rem;border-radius:4px;color:var(--fg);text-decoration:none}
.site-nav a:hover{background:var(--soft)}
.site-nav a[aria-current=page]{background:#ddeafe;font-weight:600}
.site-nav .folder{color:var(--muted);font-weight:600;padding:.15rem .4rem;display:block}
main{min-width:0;max-width:72ch}
article h1{font-size:2.1rem;line-height:1.2;margin:.2rem 0 1rem}
h2{font-size:1.6rem;line-height:1.25;margin:2rem 0 .6rem}
h3{font-size:1.3rem;margin:1.6rem 0 .5rem}
h4{font-size:1.1rem;margin:1.4rem 0 .4rem}
p{margin:.6rem 0}
.lead{color:var(--muted);font-size:1.1rem}
blockquote{margin:1rem 0;padding:.2rem 1rem;border-left:4px solid var(--line);color:var(--muted)}
pre{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:.9rem 1rem;overflow:auto;font-size:.9rem;line-height:1.5}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em}
:not(pre)>code{background:var(--soft);padding:.1em .3em;border-radius:4px}
ul,ol{padding-left:1.6rem}
li{margin:.2rem 0}
ul.checklist{list-style:none;padding-left:.2rem}
.check{display:inline-block;width:1.3em}
.done>.text{text-decoration:line-through;color:var(--muted)}
table{border-collapse:collapse;margin:1rem 0;display:block;overflow-x:auto}
td,th{border:1px solid var(--line);padding:.4rem .7rem;text-align:left;vertical-align:top}
th{background:var(--soft)}
figure{margin:1.2rem 0}
figure img{max-width:100%;height:auto;border-radius:4px}
figcaption{color:var(--muted);font-size:.9rem}
.nested{margin-left:1.5rem}
.align-center{text-align:center}.align-right{text-align:right}.align-justify{text-align:justify}
.doc-list{padding-left:1.2rem}
.notice{padding:1rem;border:1px solid var(--line);border-radius:6px;background:var(--soft)}
.site-footer{border-top:1px solid var(--line);padding:1rem 1.5rem;color:var(--muted);font-size:.9rem;display:flex;gap:1rem;flex-wrap:wrap}
.site-footer ul{list-style:none;display:flex;gap:1rem;margin:0;padding:0}
.site-search{margin:0 0 1rem}
.site-search label{display:block;font-size:.8rem;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin-bottom:.25rem}
.site-search input{width:100%;padding:.4rem .55rem;font:inherit;border:1px solid #8c959f;border-radius:6px}
.site-search button{margin-top:.4rem;padding:.35rem .8rem;font:inherit;font-weight:600;border:0;border-radius:6px;background:var(--accent);color:var(--accent-fg);cursor:pointer}
.search-results{list-style:none;padding:0}
.search-results li{margin:0 0 1.1rem}
.search-results p{margin:.2rem 0 0;color:var(--muted)}
.search-results mark{background:#fff3b0;color:inherit}
.gate{max-width:26rem;margin:4rem auto;padding:0 1.5rem}
.gate label{display:block;font-weight:600;margin:.8rem 0 .3rem}
.gate input[type=password]{width:100%;padding:.55rem .7rem;font:inherit;border:1px solid #8c959f;border-radius:6px}
.gate button{margin-top:1rem;padding:.55rem 1.1rem;font:inherit;font-weight:600;border:0;border-radius:6px;background:var(--accent);color:var(--accent-fg);cursor:pointer}
.error{color:#b42318;font-weight:600}
`.trim();
