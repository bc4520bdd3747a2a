// webindex web UI: hash-routed views over the JSON API of docs/api.md, served by the same binary.
// No framework and no build step. Data reaches the page only as text nodes and attribute values
// (createElement / textContent / setAttribute), never as HTML.
'use strict';

(() => {
  const view = document.getElementById('view');
  const searchForm = document.getElementById('search');
  const searchInput = document.getElementById('search-input');

  // ---- DOM ----

  //! el('a', {href: '#', class: 'x'}, 'text', child, [more]): an element; strings become text.
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') node.className = value;
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? '' : String(value));
    }
    for (const child of children.flat()) {
      if (child !== undefined && child !== null && child !== false) node.append(child);
    }
    return node;
  }

  const fmt = (n) => (typeof n === 'number' ? n.toLocaleString('en-US') : '\u2014');
  const plural = (n, one, many) => `${fmt(n)} ${n === 1 ? one : many}`;

  // ---- Routes: #/top, #/pagerank, #/pages?domain=D, #/page?url=U (each with optional limit and cursors) ----

  function hashFor(view, params) {
    const query = Object.entries(params)
      .filter(([, v]) => v !== undefined && v !== null && v !== '')
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
      .join('&');
    return `#/${view}${query ? '?' + query : ''}`;
  }
  const pageHash = (url) => hashFor('page', {url});
  const domainHash = (domain) => hashFor('pages', {domain});

  function parseHash() {
    const raw = location.hash.replace(/^#\/?/, '');
    const q = raw.indexOf('?');
    return {
      name: q < 0 ? raw : raw.slice(0, q),
      params: new URLSearchParams(q < 0 ? '' : raw.slice(q + 1)),
    };
  }

  //! What the search box routes to: a URL (with a scheme, or with a path) or a domain.
  function searchHash(text) {
    const q = text.trim();
    if (!q) return '#/top';
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(q)) return pageHash(q);
    if (q.includes('/')) return pageHash('http://' + q);
    return domainHash(q);
  }

  // ---- The API ----

  class ApiError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  async function api(route, params) {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) {
      if (v !== undefined && v !== null && v !== '') query.set(k, v);
    }
    const qs = query.toString();
    let response;
    try {
      response = await fetch(`api/${route}${qs ? '?' + qs : ''}`, {headers: {Accept: 'application/json'}});
    } catch (e) {
      throw new ApiError(0, `cannot reach the webindex server (${e.message})`);
    }
    let body = null;
    try {
      body = await response.json();
    } catch (e) {
      // not JSON: reported below
    }
    if (!response.ok) {
      const message = body && typeof body.error === 'string' ? body.error : response.statusText;
      throw new ApiError(response.status, message || 'request failed');
    }
    if (body === null) throw new ApiError(response.status, 'the server did not answer JSON');
    return body;
  }

  const kStatusText = {400: 'Bad request', 404: 'Not found', 405: 'Not allowed', 409: 'Changed', 500: 'Server error',
                       503: 'Unavailable'};

  function errorBox(error) {
    const title = error instanceof ApiError
      ? (error.status ? `${kStatusText[error.status] || 'Error'} (${error.status})` : 'Connection failed')
      : 'Error';
    return el('div', {class: 'error', role: 'alert'}, el('strong', {}, title), ': ', error.message);
  }

  // ---- Paging: a stack of the cursors that led to the current page of each list ----
  // Per list, the tab keeps the cursors of the pages it has paged through ('' is the first page)
  // and which one is shown, in sessionStorage: "Previous" survives a reload, and the browser's
  // back and forward buttons move along the same trail.

  const kStacksKey = 'webindex.cursors';
  let trails = {};
  try {
    trails = JSON.parse(sessionStorage.getItem(kStacksKey) || '{}') || {};
  } catch (e) {
    trails = {};
  }
  let pendingNext = null;  // {key, from}: set when "Next" is clicked, read by the next render

  function saveTrails() {
    try {
      const keys = Object.keys(trails);
      if (keys.length > 50) delete trails[keys[0]];
      sessionStorage.setItem(kStacksKey, JSON.stringify(trails));
    } catch (e) {
      // storage full or disabled: paging still works within this page view
    }
  }

  //! The cursors from the first known page to `cursor`, the page list `key` shows now, after a
  //! click on "Next" (`next`) or not. The last one is `cursor`.
  function trail(key, cursor, next) {
    const known = trails[key];
    let {cursors, at} = known && Array.isArray(known.cursors) ? known : {cursors: [], at: -1};
    const seen = cursors.indexOf(cursor);
    if (seen >= 0) {
      at = seen;  // a page seen before: back, forward, or "Previous"
    } else if (next && next.key === key && cursors[at] === next.from) {
      cursors = cursors.slice(Math.max(0, at - 198), at + 1).concat([cursor]);
      at = cursors.length - 1;
    } else {
      cursors = [cursor];  // arrived by a link: "Previous" is the first page
      at = 0;
    }
    trails[key] = {cursors, at};
    saveTrails();
    return cursors.slice(0, at + 1);
  }

  //! Previous / page number / Next for one list. hashAt(cursor) is the view showing that page.
  function pager(key, stack, next, hashAt) {
    const cursor = stack[stack.length - 1];
    if (!cursor && !next) return null;  // the whole list fits on one page
    const nav = el('nav', {class: 'pager', 'aria-label': 'Pages'});
    if (stack.length >= 2) {
      nav.append(el('a', {class: 'prev', rel: 'prev', href: hashAt(stack[stack.length - 2])}, '\u2039 Previous'));
    } else if (cursor) {
      nav.append(el('a', {class: 'prev', rel: 'prev', href: hashAt('')}, '\u00ab First page'));
    } else {
      nav.append(el('span', {class: 'prev disabled', 'aria-disabled': 'true'}, '\u2039 Previous'));
    }
    nav.append(el('span', {class: 'pageno'}, stack[0] === '' ? `Page ${stack.length}` : ''));
    if (next) {
      const onclick = () => { pendingNext = {key, from: cursor}; };
      nav.append(el('a', {class: 'next', rel: 'next', href: hashAt(next), onclick}, 'Next \u203a'));
    } else {
      nav.append(el('span', {class: 'next disabled', 'aria-disabled': 'true'}, 'Next \u203a'));
    }
    return nav;
  }

  //! The rank of the first row, when the stack starts at the first page.
  function firstRank(stack, limit, pageSize) {
    if (stack[0] !== '') return 0;
    return (stack.length - 1) * (Number(limit) || pageSize) + 1;
  }

  // ---- Lists ----

  const pageLink = (url, uri) => el('a', {class: 'page-link', href: pageHash(url), title: uri}, url);

  function rankTable(results, rank) {
    if (!results.length) return el('p', {class: 'empty'}, 'No pages.');
    return el('table', {class: 'list ranked'},
      el('thead', {}, el('tr', {},
        el('th', {class: 'rank', scope: 'col'}, '#'),
        el('th', {class: 'url', scope: 'col'}, 'Page'),
        el('th', {class: 'count', scope: 'col'}, 'Linked from'))),
      el('tbody', {}, results.map((r, i) => el('tr', {},
        el('td', {class: 'rank'}, rank ? String(rank + i) : ''),
        el('td', {class: 'url'}, pageLink(r.url, r.uri)),
        el('td', {class: 'count'}, fmt(r.count))))));
  }

  function linkTable(results, empty) {
    if (!results.length) return el('p', {class: 'empty'}, empty);
    return el('table', {class: 'list links'},
      el('thead', {}, el('tr', {},
        el('th', {class: 'url', scope: 'col'}, 'Page'),
        el('th', {class: 'anchor', scope: 'col'}, 'Anchor text'))),
      el('tbody', {}, results.map((r) => el('tr', {},
        el('td', {class: 'url'}, pageLink(r.url, r.uri)),
        r.anchorText
          ? el('td', {class: 'anchor'}, r.anchorText)
          : el('td', {class: 'anchor none'}, 'no anchor text')))));
  }

  function scoreTable(results, rank) {
    if (!results.length) return el('p', {class: 'empty'}, 'No pages.');
    return el('table', {class: 'list ranked'},
      el('thead', {}, el('tr', {},
        el('th', {class: 'rank', scope: 'col'}, '#'),
        el('th', {class: 'url', scope: 'col'}, 'Page'),
        el('th', {class: 'count', scope: 'col'}, 'PageRank'))),
      el('tbody', {}, results.map((r, i) => el('tr', {},
        el('td', {class: 'rank'}, rank ? String(rank + i) : ''),
        el('td', {class: 'url'}, el('a', {class: 'page-link', href: pageHash(r.url)}, r.url)),
        el('td', {class: 'count'}, String(r.score))))));
  }

  const kPageSize = 25;  // the API's default limit

  // ---- Views. Each returns a promise; render() shows the latest one only. ----

  async function showTop(params, next, isCurrent) {
    const limit = params.get('limit') || '';
    const key = `top|${limit}`;
    const stack = trail(key, params.get('next') || '', next);
    const data = await api('top', {limit, next: stack[stack.length - 1]});
    if (!isCurrent()) return null;
    document.title = 'Top pages \u2014 webindex';
    return el('section', {class: 'card'},
      el('h1', {}, 'Most linked-to pages'),
      el('p', {class: 'lead'}, 'Every page in the index, by the number of pages linking to it.'),
      rankTable(data.results, firstRank(stack, limit, kPageSize)),
      pager(key, stack, data.next, (c) => hashFor('top', {limit, next: c})));
  }

  async function showPageRank(params, next, isCurrent) {
    const limit = params.get('limit') || '';
    const key = `pagerank|${limit}`;
    let stack = trail(key, params.get('next') || '', next);
    let data;
    try {
      data = await api('pagerank', {limit, next: stack[stack.length - 1]});
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 409) throw e;
      stack = trail(key, '', null);  // a newer result replaced the one being paged: start over
      data = await api('pagerank', {limit});
    }
    if (!isCurrent()) return null;
    document.title = 'By PageRank \u2014 webindex';
    const when = new Date(data.computedAtMs).toISOString().replace('.000Z', 'Z');
    return el('section', {class: 'card'},
      el('h1', {}, 'Pages by PageRank'),
      el('p', {class: 'lead', id: 'pagerank-result', 'data-result': data.result},
        `Result ${fmt(data.result)}: ${plural(data.nodes, 'page', 'pages')} and ${plural(data.edges, 'link', 'links')}, `,
        `${data.iterations} iterations, computed from the table as of `, el('time', {datetime: when}, when), '.'),
      scoreTable(data.results, firstRank(stack, limit, kPageSize)),
      pager(key, stack, data.next, (c) => hashFor('pagerank', {limit, next: c})));
  }

  async function showPages(params, next, isCurrent) {
    const domain = (params.get('domain') || '').trim();
    if (!domain) throw new ApiError(400, 'no domain given: search for one, e.g. stackoverflow.com');
    searchInput.value = domain;
    const limit = params.get('limit') || '';
    const key = `pages|${domain}|${limit}`;
    const stack = trail(key, params.get('next') || '', next);
    const data = await api('pages', {domain, limit, next: stack[stack.length - 1]});
    if (!isCurrent()) return null;
    document.title = `${data.domain} \u2014 webindex`;
    const summary = data.total === 0
      ? 'The index knows no pages of this domain.'
      : `${plural(data.total, 'page', 'pages')} of this domain in the index, most linked-to first.`;
    return el('section', {class: 'card'},
      el('p', {class: 'kicker'}, 'Domain'),
      el('h1', {}, data.domain),
      el('p', {class: 'lead', id: 'domain-total', 'data-total': data.total}, summary),
      data.total === 0 ? null : rankTable(data.results, firstRank(stack, limit, kPageSize)),
      data.total === 0 ? null : pager(key, stack, data.next, (c) => hashFor('pages', {domain, limit, next: c})));
  }

  function details(page) {
    const row = (label, ...value) => [el('dt', {}, label), el('dd', {}, ...value)];
    const missing = (text) => el('span', {class: 'none'}, text);
    const external = /^https?:\/\//i.test(page.url)
      ? el('a', {class: 'external', href: page.url, rel: 'noopener noreferrer nofollow', target: '_blank'}, 'open \u2197')
      : null;
    return el('dl', {class: 'details'},
      row('URL', el('span', {class: 'mono'}, page.url), ' ', external),
      row('URI', el('code', {}, page.uri)),
      row('Domain', el('a', {href: domainHash(page.domain)}, page.domain)),
      row('Linked from', plural(page.incount, 'page', 'pages')),
      row('Links out', plural(page.numOutbound, 'link', 'links')),
      row('PageRank', page.pagerank
        ? el('span', {}, String(page.pagerank.score), ' ', el('a', {href: '#/pagerank', class: 'none'}, `(result ${page.pagerank.result})`))
        : missing('not computed yet')),
      row('Crawled', page.crawled && page.crawlDate
        ? el('time', {datetime: page.crawlDate}, page.crawlDate)
        : missing('never (only linked to)')),
      row('Title', page.title ? page.title : missing('\u2014')),
      row('Server', page.server ? page.server : missing('\u2014')));
  }

  async function linkSection(url, type, params, next) {
    const param = type === 'in' ? 'in' : 'out';
    const limit = params.get('limit') || '';
    const key = `${type}|${url}|${limit}`;
    const stack = trail(key, params.get(param) || '', next);
    const title = type === 'in' ? 'Linked from' : 'Links to';
    const section = el('section', {class: 'card', id: `${type}-links`}, el('h2', {}, title));
    try {
      const data = await api('links', {url, linkType: type, limit, next: stack[stack.length - 1]});
      section.firstChild.append(' ', el('span', {class: 'badge'}, fmt(data.total)));
      section.append(linkTable(data.results, type === 'in'
        ? 'No page in the index links here.'
        : 'No outbound links (or the page was never crawled).'));
      const other = type === 'in' ? 'out' : 'in';
      const hashAt = (c) => hashFor('page', {url, limit, [param]: c, [other]: params.get(other)});
      const nav = pager(key, stack, data.next, hashAt);
      if (nav) section.append(nav);
    } catch (e) {
      section.append(errorBox(e));
    }
    return section;
  }

  async function showPage(params, next, isCurrent) {
    const url = (params.get('url') || '').trim();
    if (!url) throw new ApiError(400, 'no URL given: search for one, e.g. http://stackoverflow.com/');
    searchInput.value = url;
    const [page, inLinks, outLinks] = await Promise.all([
      api('page', {url}),
      linkSection(url, 'in', params, next),
      linkSection(url, 'out', params, next),
    ]);
    if (!isCurrent()) return null;
    document.title = `${page.title || page.url} \u2014 webindex`;
    const head = el('section', {class: 'card', id: 'page'},
      el('p', {class: 'kicker'}, page.crawled ? 'Page' : 'Page \u00b7 not crawled'),
      page.title ? el('h1', {}, page.title) : el('h1', {class: 'mono'}, page.url),
      details(page));
    return [head, el('div', {class: 'columns'}, inLinks, outLinks)];
  }

  // ---- Rendering ----

  const kViews = {top: showTop, pagerank: showPageRank, pages: showPages, page: showPage};
  let renderSeq = 0;

  function setState(state) {
    document.body.dataset.state = state;
    view.setAttribute('aria-busy', state === 'loading' ? 'true' : 'false');
  }

  async function render() {
    const seq = ++renderSeq;
    const isCurrent = () => seq === renderSeq;
    const next = pendingNext;
    pendingNext = null;
    const {name, params} = parseHash();
    if (!name) {
      history.replaceState(null, '', '#/top');
      return render();
    }
    view.dataset.view = name;
    if (name === 'top') searchInput.value = '';
    setState('loading');
    const show = kViews[name];
    try {
      if (!show) throw new ApiError(404, `no view '${name}': try Top pages or the search box`);
      const content = await show(params, next, isCurrent);
      if (!isCurrent()) return;
      view.replaceChildren(...[content].flat());
      setState('ready');
    } catch (e) {
      if (!isCurrent()) return;
      document.title = 'Error \u2014 webindex';
      view.replaceChildren(el('section', {class: 'card'}, errorBox(e),
        el('p', {}, el('a', {href: '#/top'}, 'Back to the top pages'))));
      setState('error');
    }
    if (isCurrent()) window.scrollTo(0, 0);
  }

  searchForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const target = searchHash(searchInput.value);
    if (target === location.hash) render();
    else location.hash = target;
  });
  window.addEventListener('hashchange', render);
  view.replaceChildren(el('p', {class: 'loading'}, 'Loading\u2026'));
  render();
})();
