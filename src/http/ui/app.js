// webindex web UI: hash-routed views over the JSON API of docs/api.md, served by the same binary.
// No framework and no build step. Data reaches the page only as text nodes and attribute values
// (createElement / textContent / setAttribute), never as HTML.
'use strict';

(() => {
  const view = document.getElementById('view');
  const searchForm = document.getElementById('search');
  const searchInput = document.getElementById('search-input');
  const suggestList = document.getElementById('suggestions');

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

  // Numbers always in one locale (thousands separated by commas), whatever the browser's.
  const kNumber = new Intl.NumberFormat('en-US');
  const kScore = new Intl.NumberFormat('en-US', {maximumSignificantDigits: 9});
  const fmt = (n) => (typeof n === 'number' ? kNumber.format(n) : '\u2014');
  const plural = (n, one, many) => `${fmt(n)} ${n === 1 ? one : many}`;
  const score = (n) => (typeof n === 'number' ? kScore.format(n) : '\u2014');

  // ---- Routes: #/top, #/pagerank, #/pages?domain=D, #/page?url=U, #/search?q=T, #/statements?s=&p=&o=&graph=,
  // #/temporal?after=T&p=&graph=, #/text?q=&p=&graph=, #/sparql?query=Q, #/status (lists with optional limit and
  // cursors) ----

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

  //! What the search box routes to: a URL (with a scheme, or with a path), a host name (with a
  //! dot: its domain), or the start of a name (the domains and hosts starting with it).
  function searchHash(text) {
    const q = text.trim();
    if (!q) return '#/top';
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(q)) return pageHash(q);
    if (q.includes('/')) return pageHash('http://' + q);
    if (/^[a-z0-9_-]+(\.[a-z0-9_-]+)+\.?$/i.test(q)) return domainHash(q);
    return hashFor('search', {q});
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

  // ---- Suggestions: domains and hosts starting with what is typed (GET /api/suggest) ----
  // A listbox under the search box (the ARIA combobox pattern): Up and Down move through it, Enter
  // or a click opens the chosen domain's view, Escape closes it.

  const kSuggestDelayMs = 150;
  const kSuggestLimit = 8;
  let suggestTimer = null;
  let suggestSeq = 0;
  let suggestions = [];
  let activeSuggestion = -1;

  //! The start of a host name the text may be ("stackov"), or '' for a URL or other text.
  function nameStart(text) {
    const q = text.trim().toLowerCase();
    return /^[a-z0-9_-][a-z0-9._-]*$/.test(q) && q.length <= 253 ? q : '';
  }

  function closeSuggestions() {
    suggestions = [];
    activeSuggestion = -1;
    suggestList.hidden = true;
    suggestList.replaceChildren();
    searchInput.setAttribute('aria-expanded', 'false');
    searchInput.removeAttribute('aria-activedescendant');
  }

  //! Also forgets a suggestion request under way or due: what it would show is no longer wanted.
  function cancelSuggestions() {
    clearTimeout(suggestTimer);
    ++suggestSeq;
    closeSuggestions();
  }

  function suggestionDetail(s) {
    return s.kind === 'domain' ? `domain \u00b7 ${plural(s.pages, 'page', 'pages')}` : `host \u00b7 ${s.domain}`;
  }

  function showSuggestions(items) {
    suggestions = items;
    activeSuggestion = -1;
    searchInput.removeAttribute('aria-activedescendant');
    if (!items.length) return closeSuggestions();
    suggestList.replaceChildren(...items.map((s, i) => el('li', {
      id: `suggestion-${i}`, class: `suggestion ${s.kind}`, role: 'option', 'aria-selected': 'false',
      'data-name': s.name,
      onmousedown: (event) => { event.preventDefault(); chooseSuggestion(i); },
    }, el('span', {class: 'name'}, s.name), el('span', {class: 'detail'}, suggestionDetail(s)))));
    suggestList.hidden = false;
    searchInput.setAttribute('aria-expanded', 'true');
  }

  function markSuggestion(index) {
    activeSuggestion = index;
    suggestList.querySelectorAll('[role=option]').forEach((li, i) => {
      li.setAttribute('aria-selected', i === index ? 'true' : 'false');
    });
    if (index < 0) {
      searchInput.removeAttribute('aria-activedescendant');
    } else {
      searchInput.setAttribute('aria-activedescendant', `suggestion-${index}`);
      document.getElementById(`suggestion-${index}`).scrollIntoView({block: 'nearest'});
    }
  }

  function chooseSuggestion(index) {
    const s = suggestions[index];
    if (!s) return;
    cancelSuggestions();
    searchInput.value = s.name;
    const target = domainHash(s.name);
    if (target === location.hash) render();
    else location.hash = target;
  }

  async function fetchSuggestions() {
    const seq = ++suggestSeq;
    const q = nameStart(searchInput.value);
    if (!q) return closeSuggestions();
    try {
      const data = await api('suggest', {q, limit: kSuggestLimit});
      if (seq === suggestSeq && document.activeElement === searchInput) showSuggestions(data.results);
    } catch (e) {
      if (seq === suggestSeq) closeSuggestions();  // suggestions are a help: the search still works
    }
  }

  searchInput.addEventListener('input', () => {
    clearTimeout(suggestTimer);
    suggestTimer = setTimeout(fetchSuggestions, kSuggestDelayMs);
  });
  searchInput.addEventListener('keydown', (event) => {
    const open = !suggestList.hidden && suggestions.length > 0;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (!open) return fetchSuggestions();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      const n = suggestions.length;
      markSuggestion(activeSuggestion < 0 ? (step > 0 ? 0 : n - 1) : (activeSuggestion + step + n) % n);
    } else if (event.key === 'Enter' && open && activeSuggestion >= 0) {
      event.preventDefault();
      chooseSuggestion(activeSuggestion);
    } else if (event.key === 'Escape') {
      if (open) event.preventDefault();  // closing the list keeps the text; a second Escape clears it
      cancelSuggestions();
    }
  });
  searchInput.addEventListener('blur', cancelSuggestions);

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
    nav.append(el('span', {class: 'pageno'}, stack[0] === '' ? `Page ${fmt(stack.length)}` : ''));
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
        el('td', {class: 'rank'}, rank ? fmt(rank + i) : ''),
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
        el('td', {class: 'rank'}, rank ? fmt(rank + i) : ''),
        el('td', {class: 'url'}, el('a', {class: 'page-link', href: pageHash(r.url)}, r.url)),
        el('td', {class: 'count'}, score(r.score))))));
  }

  const kPageSize = 25;  // the API's default limit

  // ---- Views. Each returns a promise; render() shows the latest one only. ----

  //! A row of figures: [label, value (a number, or an element saying why there is none), id].
  function stats(items) {
    return el('dl', {class: 'stats'}, items.map(([label, value, id]) => el('div', {class: 'stat', id},
      el('dt', {}, label),
      el('dd', {'data-value': typeof value === 'number' ? value : null}, typeof value === 'number' ? fmt(value) : value))));
  }

  //! "not available", with the reason the server gave.
  const unavailable = (reason) => el('span', {class: 'none', title: reason || null}, 'not available');

  //! The table's totals (GET /api/totals), or why there are none.
  async function totalsBox() {
    try {
      const t = await api('totals', {});
      return stats([['Pages', t.pages, 'total-pages'], ['Crawled', t.crawled, 'total-crawled'],
                    ['Linked to', t.linkedTo, 'total-linked'], ['Links', t.links, 'total-links'],
                    ['Domains', t.domains, 'total-domains']]);
    } catch (e) {
      return el('p', {class: 'lead', id: 'totals-unavailable'}, 'Totals: ', unavailable(), ` (${e.message})`);
    }
  }

  async function showTop(params, next, isCurrent) {
    const limit = params.get('limit') || '';
    const key = `top|${limit}`;
    const stack = trail(key, params.get('next') || '', next);
    const [data, totals] = await Promise.all([api('top', {limit, next: stack[stack.length - 1]}), totalsBox()]);
    if (!isCurrent()) return null;
    document.title = 'Top pages \u2014 webindex';
    return el('section', {class: 'card'},
      el('h1', {}, 'Most linked-to pages'),
      el('p', {class: 'lead'}, 'Every page in the index, by the number of pages linking to it.'),
      totals,
      rankTable(data.results, firstRank(stack, limit, kPageSize)),
      pager(key, stack, data.next, (c) => hashFor('top', {limit, next: c})));
  }

  //! Domains and hosts as GET /api/suggest lists them, each opening its domain's view.
  function nameTable(results) {
    return el('table', {class: 'list names'},
      el('thead', {}, el('tr', {},
        el('th', {class: 'name', scope: 'col'}, 'Domain or host'),
        el('th', {class: 'kind', scope: 'col'}, 'What'),
        el('th', {class: 'count', scope: 'col'}, 'Pages'))),
      el('tbody', {}, results.map((r) => el('tr', {class: r.kind},
        el('td', {class: 'name'}, el('a', {href: domainHash(r.name)}, r.name)),
        el('td', {class: 'kind'}, r.kind === 'domain' ? 'domain' : ['host of ', el('a', {href: domainHash(r.domain)}, r.domain)]),
        el('td', {class: 'count'}, r.kind === 'domain' ? fmt(r.pages) : '')))));
  }

  //! What starts with `q`, or a message saying nothing does and what to try.
  function nameMatches(q, data) {
    if (!data.results.length) {
      return el('p', {class: 'empty', id: 'no-match'},
        `No domain or host in the index starts with \u201c${q}\u201d. Check the spelling, type less of the name, `,
        'or give a whole URL (http://\u2026) to open one page.');
    }
    return [nameTable(data.results), data.truncated
      ? el('p', {class: 'lead note'}, `More domains start with \u201c${q}\u201d than one search reads: type more of the name.`)
      : null];
  }

  async function showSearch(params, next, isCurrent) {
    const text = (params.get('q') || '').trim();
    if (!text) throw new ApiError(400, 'nothing to search for: type the start of a domain, e.g. stackoverflow');
    searchInput.value = text;
    const data = await api('suggest', {q: text, limit: 50});
    if (!isCurrent()) return null;
    document.title = `${data.q} \u2014 webindex`;
    return el('section', {class: 'card', id: 'search-results'},
      el('p', {class: 'kicker'}, 'Search'),
      el('h1', {}, `Domains and hosts starting with \u201c${data.q}\u201d`),
      nameMatches(data.q, data));
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
        `${plural(data.iterations, 'iteration', 'iterations')}, computed from the table as of `, el('time', {datetime: when}, when), '.'),
      el('p', {class: 'lead', id: 'pagerank-meaning'},
        'Scores are not normalized: every page starts at 1.0, and each iteration gives it 0.15 + 0.85 \u00d7 the sum, ',
        'over the pages linking to it, of their score divided by their number of links out. A page nothing links to ',
        'has 0.15, and the scores do not add up to 1 (docs/pagerank.md).'),
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
      data.total === 0 ? await similarNames(data.domain) : rankTable(data.results, firstRank(stack, limit, kPageSize)),
      data.total === 0 ? null : pager(key, stack, data.next, (c) => hashFor('pages', {domain, limit, next: c})));
  }

  //! For a domain the index does not know: the known ones starting like it ("stackoverflw.com": "stackoverf...").
  async function similarNames(domain) {
    const label = domain.split('.')[0];
    const q = label.slice(0, Math.max(3, label.length - 2));
    try {
      const data = await api('suggest', {q, limit: 10});
      if (!data.results.length) return null;
      return el('div', {id: 'similar'}, el('h2', {}, `Known domains starting with \u201c${data.q}\u201d`),
        nameTable(data.results));
    } catch (e) {
      return null;  // a help only
    }
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
        ? el('span', {}, score(page.pagerank.score), ' ',
          el('a', {href: '#/pagerank', class: 'none'}, `(result ${fmt(page.pagerank.result)})`))
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

  // ---- Status: the processor and its table (GET /api/status), refreshed while shown ----

  const kStatusRefreshMs = 5000;
  const kStatusLabels = {generation: 'Generation', events: 'Events consumed', eventsPerSecond: 'Events per second',
                         lag: 'Consumer lag', pagerank: 'Last PageRank', pagerankChecks: 'PageRank checks',
                         deadLetters: 'Dead letters', 'deadLetters.stored': 'Dead letters in the topic',
                         totals: 'Totals'};
  const isoTime = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');

  // A lag nobody reported (a group's join under way) is "unknown", never 0.
  const lagTotal = (lag) => (lag.total === null
    ? `unknown (at least ${fmt(lag.known)}; ${plural(lag.unknownPartitions, 'partition', 'partitions')} unreported)`
    : lag.total);
  const orUnknown = (n) => (n === null ? 'unknown' : fmt(n));

  function lagTable(lag) {
    const num = (cls, label) => el('th', {class: `count ${cls}`, scope: 'col'}, label);
    return el('table', {class: 'list lag'},
      el('thead', {}, el('tr', {},
        el('th', {class: 'stage', scope: 'col'}, 'Stage'),
        el('th', {class: 'topic', scope: 'col'}, 'Topic'),
        num('partition', 'Partition'), el('th', {class: 'from', scope: 'col'}, 'Position of'),
        num('position', 'Position'), num('end', 'End'), num('lag', 'Lag'))),
      el('tbody', {}, lag.partitions.map((l) => el('tr', {},
        el('td', {class: 'stage'}, l.stage),
        el('td', {class: 'topic mono'}, l.topic),
        el('td', {class: 'count partition'}, fmt(l.partition)),
        el('td', {class: 'from'}, l.from),
        el('td', {class: 'count position'}, orUnknown(l.position)),
        el('td', {class: 'count end'}, fmt(l.end)),
        el('td', {class: 'count lag'}, orUnknown(l.lag))))));
  }

  function rankDetails(rank, checks) {
    const row = (label, ...value) => [el('dt', {}, label), el('dd', {}, ...value)];
    const positions = rank.exports.positions.map((p) => (p < 0 ? '\u2014' : fmt(p))).join(', ');
    return el('dl', {class: 'details'},
      row('Result', el('a', {href: '#/pagerank'}, fmt(rank.result))),
      row('Computed from the table as of', el('time', {datetime: isoTime(rank.computedAtMs)}, isoTime(rank.computedAtMs))),
      row('Graph', `${plural(rank.nodes, 'page', 'pages')}, ${plural(rank.edges, 'link', 'links')}`),
      row('Iterations', fmt(rank.iterations)),
      row('Took', `${kNumber.format(rank.seconds)} s`),
      row('Reflects', `every export of ${rank.exports.topic} before positions ${positions}`),
      checks ? row('Checks', `every ${fmt(checks.intervalSeconds)} s: ${fmt(checks.stored)} stored, `,
        `${fmt(checks.unchanged)} unchanged, ${fmt(checks.failed)} failed${checks.running ? '; one is running' : ''}`)
        : null);
  }

  //! Rejected input (webindex.dead-letters): this process's count and last reason, what the topic
  //! holds, and the command that reads them.
  function deadLetterDetails(dead, why) {
    const row = (label, id, ...value) => [el('dt', {}, label), el('dd', {id}, ...value)];
    return [
      el('p', {class: 'lead'}, 'Input that could not be applied (an invalid event, a statement record that does not ',
        'parse, a record Kafka refused) goes to topic ', el('code', {}, dead.topic),
        ' with its reason; nothing else changed. Counts and the last reason are since this process started; the ',
        'topic keeps every dead letter until its retention removes it.'),
      el('dl', {class: 'details'},
        row('Since this process started', 'dead-letters-count', fmt(dead.count)),
        row('Last reason', 'dead-letters-last', dead.last
          ? [el('span', {class: 'reason'}, dead.last.reason), ' (',
             el('time', {datetime: isoTime(dead.last.atMs)}, isoTime(dead.last.atMs)), ')']
          : el('span', {class: 'none'}, 'none since this process started')),
        row('In the topic now', 'dead-letters-stored',
          dead.stored === null ? unavailable(why['deadLetters.stored']) : fmt(dead.stored)),
        row('Read them', 'dead-letters-read', el('code', {class: 'command'}, dead.read)))];
  }

  async function showStatus(params, next, isCurrent) {
    const data = await api('status', {});
    if (!isCurrent()) return null;
    document.title = 'Status \u2014 webindex';
    const why = data.unavailable || {};
    const figure = (key, value) => (value === null || value === undefined ? unavailable(why[key]) : value);
    const rank = data.pagerank;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const missing = Object.keys(why);
    return [
      el('section', {class: 'card', id: 'status'},
        el('h1', {}, 'Status'),
        el('p', {class: 'lead'}, 'The processor behind this server and its table, as of ', el('time', {datetime: now}, now),
          `; refreshed every ${kStatusRefreshMs / 1000} seconds.`),
        data.healthy === false
          ? el('p', {class: 'error', id: 'status-error', role: 'alert'}, 'The store takes no more writes: ', data.error)
          : null,
        stats([['Generation', figure('generation', data.generation), 'status-generation'],
               ['Events consumed', figure('events', data.events), 'status-events'],
               ['Events per second', figure('eventsPerSecond', data.eventsPerSecond), 'status-rate'],
               ['Consumer lag', data.lag ? lagTotal(data.lag) : unavailable(why.lag), 'status-lag'],
               ['Last PageRank', rank ? rank.result : unavailable(why.pagerank), 'status-pagerank'],
               ['Dead letters', data.deadLetters ? data.deadLetters.count : unavailable(why.deadLetters),
                'status-dead-letters']]),
        missing.length ? el('ul', {class: 'unavailable', id: 'status-unavailable'}, missing.map((key) =>
          el('li', {'data-key': key}, el('strong', {}, kStatusLabels[key] || key), ': not available \u2014 ', why[key])))
          : null),
      el('section', {class: 'card', id: 'status-lag-detail'},
        el('h2', {}, 'Consumer lag', data.lag ? el('span', {class: 'badge'}, data.lag.total === null ? 'unknown' : fmt(data.lag.total)) : null),
        data.lag
          ? [el('p', {class: 'lead'}, 'Records of each stage\u2019s input not yet committed (end \u2212 committed position): ',
               'this process\u2019s own position, or for a group member the group\u2019s for the partitions other ',
               'members hold.'),
             lagTable(data.lag)]
          : el('p', {class: 'none'}, `Not available: ${why.lag}`)),
      el('section', {class: 'card', id: 'status-pagerank-detail'},
        el('h2', {}, 'PageRank'),
        rank ? rankDetails(rank, data.pagerankChecks) : el('p', {class: 'none'}, `Not available: ${why.pagerank}`)),
      el('section', {class: 'card', id: 'status-dead-letters-detail'},
        el('h2', {}, 'Dead letters', data.deadLetters ? el('span', {class: 'badge'}, fmt(data.deadLetters.count)) : null),
        data.deadLetters ? deadLetterDetails(data.deadLetters, why)
          : el('p', {class: 'none'}, `Not available: ${why.deadLetters}`)),
      el('section', {class: 'card', id: 'status-totals'},
        el('h2', {}, 'Table'),
        data.totals
          ? stats([['Pages', data.totals.pages], ['Crawled', data.totals.crawled], ['Linked to', data.totals.linkedTo],
                   ['Links', data.totals.links], ['Domains', data.totals.domains]])
          : el('p', {class: 'none'}, `Not available: ${why.totals}`)),
    ];
  }

  // ---- Statements: one triple pattern over the graph store (GET /api/triples) ----

  const kWebGraph = '<urn:webindex:web>';  // the link graph as statements (docs/graph.md)

  //! `text` with a line-break opportunity (<wbr>) after each run of '/', '?', '#', '&', '=' or ';',
  //! so that a long IRI wraps between its parts, never inside one that fits on a line.
  function breakable(text) {
    return text.split(/(?<=[/?#&=;])(?![/?#&=;])/).flatMap((part, i) => (i ? [el('wbr'), part] : [part]));
  }

  const kDateTime = /^"(-?\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?"\^\^<http:\/\/www\.w3\.org\/2001\/XMLSchema#dateTime>$/;
  const pad = (n, width) => String(n).padStart(width, '0');

  //! An xsd:dateTime literal as a readable time: with a zone, the UTC instant ("2015-07-28 07:00:00
  //! UTC"); without one, as written ("... (no time zone)"). The term itself on hover; null when the
  //! term is not such a literal (or its year is outside 1..9999).
  function dateTimeCell(term) {
    const m = kDateTime.exec(term);
    if (!m) return null;
    const [, year, month, day, hour, minute, second, fraction = '', zone] = m;
    if (!zone) {
      const local = `${year}-${month}-${day}T${hour}:${minute}:${second}${fraction}`;
      return el('time', {class: 'literal datetime', datetime: local, title: term}, `${local.replace('T', ' ')} (no time zone)`);
    }
    const sign = zone[0] === '-' ? -1 : 1;
    const offsetMinutes = zone === 'Z' ? 0 : sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
    const date = new Date(0);
    date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
    if (date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day) || Number(hour) > 24 ||
        Number(minute) > 59 || Number(second) > 59) {
      return null;  // not a date (February 30th): shown as written
    }
    date.setUTCHours(Number(hour), Number(minute) - offsetMinutes, Number(second), 0);
    const y = date.getUTCFullYear();
    if (Number.isNaN(date.getTime()) || y < 1 || y > 9999) return null;
    const ymd = `${pad(y, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}`;
    const hms = `${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}${fraction}`;
    return el('time', {class: 'literal datetime', datetime: `${ymd}T${hms}Z`, title: term}, `${ymd} ${hms} UTC`);
  }

  //! A literal as N-Triples writes it; its datatype IRI (after the closing quote) wraps like an IRI.
  function literalCell(term) {
    const close = term.lastIndexOf('"');
    if (close <= 0 || close === term.length - 1) return el('span', {class: 'literal'}, term);
    return el('span', {class: 'literal'}, term.slice(0, close + 1), breakable(term.slice(close + 1)));
  }

  //! A term in N-Triples syntax: an IRI links to the statements with it as subject; the rest is
  //! text. `rowGraph`: the statement's graph; in the web graph an http(s) IRI is a page, and also
  //! opens the page view.
  function termCell(term, graph, rowGraph) {
    if (term.length > 1 && term.startsWith('<') && term.endsWith('>')) {
      const iri = term.slice(1, -1);
      const link = el('a', {class: 'iri', href: hashFor('statements', {s: term, graph}), title: `Statements about ${iri}`},
        breakable(iri));
      if (rowGraph !== kWebGraph || !/^https?:\/\//i.test(iri)) return link;
      return [link, ' ', el('a', {class: 'page-link external', href: pageHash(iri), title: `The page ${iri}`}, 'page')];
    }
    if (term.startsWith('_:')) return el('span', {class: 'bnode'}, term);
    return dateTimeCell(term) || literalCell(term);
  }

  function statementTable(results, graph) {
    return el('table', {class: 'list statements'},
      el('thead', {}, el('tr', {},
        el('th', {class: 'subject', scope: 'col'}, 'Subject'),
        el('th', {class: 'predicate', scope: 'col'}, 'Predicate'),
        el('th', {class: 'object', scope: 'col'}, 'Object'),
        el('th', {class: 'graph', scope: 'col'}, 'Graph'))),
      el('tbody', {}, results.map((r) => el('tr', {},
        el('td', {class: 'subject'}, termCell(r.s, graph, r.graph)),
        el('td', {class: 'predicate'}, termCell(r.p, graph)),
        el('td', {class: 'object'}, termCell(r.o, graph, r.graph)),
        el('td', {class: 'graph'},
          r.graph === 'default' ? el('span', {class: 'none'}, 'default') : breakable(r.graph.replace(/^<(.*)>$/, '$1')))))));
  }

  //! A form of labelled fields that routes to `view` with their values. `fields`: [name, label,
  //! placeholder, value] or [name, label, options, value] for a choice; `toParams` maps the values
  //! to the hash's parameters.
  function queryForm(id, view, fields, limit, toParams) {
    const field = ([name, label, hint, value]) => el('label', {class: 'field'}, el('span', {}, label),
      Array.isArray(hint)
        ? el('select', {name}, hint.map(([v, text]) => el('option', {value: v, selected: v === value}, text)))
        : el('input', {name, value, placeholder: hint, spellcheck: 'false', autocomplete: 'off'}));
    const form = el('form', {class: 'pattern', id}, fields.map(field), el('button', {type: 'submit'}, 'Find'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const values = {};
      for (const [name] of fields) values[name] = form.elements[name].value.trim();
      const target = hashFor(view, {...toParams(values), limit});
      if (target === location.hash) render();
      else location.hash = target;
    });
    return form;
  }

  //! The three ways to ask for statements, as tabs above each form.
  function statementTabs(current) {
    const tab = (view, text) => el('a', {class: view === current ? 'tab current' : 'tab', href: `#/${view}`,
                                          'aria-current': view === current ? 'page' : null}, text);
    return el('nav', {class: 'tabs', 'aria-label': 'Statement queries'},
      tab('statements', 'Pattern'), tab('temporal', 'Time'), tab('text', 'Words'));
  }

  //! One page of `route`'s answer to `query` (null: nothing asked yet) with its pager, or the
  //! API's message for a bad query (400) or an index the table lacks (409), shown under the form.
  async function statementAnswer(route, view, query, hashParams, limit, params, next, emptyText) {
    if (!query) return null;
    const key = `${view}|${JSON.stringify(hashParams)}|${limit}`;
    const stack = trail(key, params.get('next') || '', next);
    try {
      const data = await api(route, {...query, limit, next: stack[stack.length - 1]});
      return [data.results.length ? statementTable(data.results, query.graph) : el('p', {class: 'empty'}, emptyText),
              pager(key, stack, data.next, (c) => hashFor(view, {...hashParams, limit, next: c}))];
    } catch (e) {
      if (!(e instanceof ApiError) || (e.status !== 400 && e.status !== 409)) throw e;
      return errorBox(e);
    }
  }

  function statementView(view, title, lead, form, answer) {
    document.title = `${title} \u2014 webindex`;
    return [
      el('section', {class: 'card'}, statementTabs(view), el('h1', {}, title), el('p', {class: 'lead'}, lead), form),
      answer ? el('section', {class: 'card', id: 'statements'}, answer) : null,
    ].filter(Boolean);
  }

  const kGraphHint = 'default, all, or a graph IRI';

  async function showStatements(params, next, isCurrent) {
    const pattern = {s: params.get('s') || '', p: params.get('p') || '', o: params.get('o') || '',
                     graph: params.get('graph') || ''};
    const limit = params.get('limit') || '';
    const answer = await statementAnswer('triples', 'statements', pattern, pattern, limit, params, next,
                                         'No statement matches this pattern.');
    if (!isCurrent()) return null;
    return statementView('statements', 'Statements',
      ['The statements of the graph store that match a triple pattern. Terms in N-Triples syntax; ',
       'an empty field matches anything. Every IRI below lists the statements about it.'],
      queryForm('pattern', 'statements', [
        ['s', 'Subject', '<http://example.org/alice> or _:b', pattern.s],
        ['p', 'Predicate', '<http://xmlns.com/foaf/0.1/knows>', pattern.p],
        ['o', 'Object', '<http://\u2026>, "text" or "text"@en', pattern.o],
        ['graph', 'Graph', kGraphHint, pattern.graph]], limit, (v) => v),
      answer);
  }

  const kRelations = [['after', 'after'], ['before', 'before'], ['equals', 'at (to the second)'],
                      ['within', 'between (T1/T2)']];

  //! #/temporal?after=T (or before, equals, within=T1/T2)&p=&graph=: statements by the instant of
  //! their xsd:dateTime object (GET /api/temporal). The graph defaults to all graphs here, so that
  //! the web graph's crawl dates are found too.
  async function showTemporal(params, next, isCurrent) {
    const relation = kRelations.map(([r]) => r).find((r) => params.has(r)) || 'after';
    const time = params.get(relation) || '';
    const hashParams = {[relation]: time, p: params.get('p') || '', graph: params.get('graph') || ''};
    const graph = hashParams.graph || 'all';
    const limit = params.get('limit') || '';
    const query = time ? {[relation]: time, p: hashParams.p, graph} : null;
    const answer = await statementAnswer('temporal', 'temporal', query, hashParams, limit, params, next,
                                         'No statement has a time in this interval.');
    if (!isCurrent()) return null;
    return statementView('temporal', 'Statements by time',
      ['Statements whose object is an xsd:dateTime, by its instant (UTC, to the second): strictly after or ',
       'before a time, in the same second, or between two (both excluded). Times in RFC 3339, any zone: ',
       '2015-07-28T05:06:17Z, 2015-07-28T07:06:17+02:00. The web graph\u2019s crawl dates are among them.'],
      queryForm('time', 'temporal', [
        ['relation', 'Object is', kRelations, relation],
        ['t', 'Time', relation === 'within' ? '2015-01-01T00:00:00Z/2016-01-01T00:00:00Z' : '2015-07-28T05:06:17Z', time],
        ['p', 'Predicate', '<urn:webindex:crawled>, or empty: any', hashParams.p],
        ['graph', 'Graph', kGraphHint, graph]], limit,
        (v) => ({[v.relation]: v.t, p: v.p, graph: v.graph === 'all' ? '' : v.graph})),
      answer);
  }

  //! #/text?q=QUERY&p=&graph=: statements whose string object matches a free-text query (GET
  //! /api/search): in the web graph, pages by the words of their title or of anchors to them.
  async function showText(params, next, isCurrent) {
    const hashParams = {q: params.get('q') || '', p: params.get('p') || '', graph: params.get('graph') || ''};
    const graph = hashParams.graph || 'all';
    const limit = params.get('limit') || '';
    const query = hashParams.q.trim() ? {q: hashParams.q, p: hashParams.p, graph} : null;
    const answer = await statementAnswer('search', 'text', query, hashParams, limit, params, next,
                                         'No statement has these words.');
    if (!isCurrent()) return null;
    return statementView('text', 'Statements by words',
      ['Statements whose object is a string with these words (any case; common words like \u201cthe\u201d ',
       'are left out): words side by side must all be there; AND, OR, NOT and parentheses combine them; ',
       'kafka* and *base match the start and end of a word. In the web graph, this finds pages by the ',
       'words of their title (urn:webindex:title) or of the anchors that point to them (urn:webindex:anchorText).'],
      queryForm('words', 'text', [
        ['q', 'Words', 'stream* AND (kafka OR log)', hashParams.q],
        ['p', 'Predicate', '<urn:webindex:title>, or empty: any', hashParams.p],
        ['graph', 'Graph', kGraphHint, graph]], limit,
        (v) => ({q: v.q, p: v.p, graph: v.graph === 'all' ? '' : v.graph})),
      answer);
  }

  // ---- SPARQL: a query over the graph store by the SPARQL 1.1 Protocol (POST /sparql) ----

  const kXsd = 'http://www.w3.org/2001/XMLSchema#';
  // An IRI the statements view can take: absolute, without the characters N-Triples excludes.
  const kLinkableIri = /^[a-z][a-z0-9+.-]*:[^\x00-\x20<>"{}|\\^`]*$/i;
  const kShownRows = 1000;      // rows drawn at first; the rest on request
  const kPageCheckLimit = 1000;  // http(s) IRIs checked for being pages of the index, per answer

  const kSparqlExamples = [
    ['Titles and links (join)', 'Each crawled page\u2019s title with the pages it links to',
     `PREFIX web: <urn:webindex:>
# Each crawled page's title, joined with the pages it links to.
SELECT ?page ?title ?target
WHERE {
  GRAPH <urn:webindex:web> {
    ?page web:title ?title .
    ?page web:linksTo ?target .
  }
}
LIMIT 25`],
    ['Server if known (OPTIONAL)', 'Crawled pages, with their title and server when they have them',
     `PREFIX web: <urn:webindex:>
# Crawled pages; the title and the server only when the page has them.
SELECT ?page ?title ?server
WHERE {
  GRAPH <urn:webindex:web> {
    ?page web:crawled ?crawled .
    OPTIONAL { ?page web:title ?title }
    OPTIONAL { ?page web:server ?server }
  }
}
LIMIT 25`],
    ['Most linked-to (COUNT)', 'Pages by the number of pages linking to them',
     `PREFIX web: <urn:webindex:>
# Pages by the number of pages linking to them.
SELECT ?target (COUNT(?page) AS ?inlinks)
WHERE {
  GRAPH <urn:webindex:web> { ?page web:linksTo ?target }
}
GROUP BY ?target
ORDER BY DESC(?inlinks)
LIMIT 10`],
    ['Crawled after 2015 (tempo:)', 'Rya\u2019s temporal filter over the crawl dates',
     `PREFIX web: <urn:webindex:>
PREFIX tempo: <tag:rya-rdf.org,2015:temporal#>
# Pages crawled after the start of 2015, newest first (the temporal index).
SELECT ?page ?crawled
WHERE {
  GRAPH <urn:webindex:web> { ?page web:crawled ?crawled }
  FILTER(tempo:after(?crawled, "2015-01-01T00:00:00Z"))
}
ORDER BY DESC(?crawled)
LIMIT 25`],
    ['Titles with a word (fts:)', 'Rya\u2019s free-text filter over page titles',
     `PREFIX web: <urn:webindex:>
PREFIX fts: <http://rdf.useekm.com/fts#>
# Pages whose title has a word starting with "user" (the free-text index).
SELECT ?page ?title
WHERE {
  GRAPH <urn:webindex:web> { ?page web:title ?title }
  FILTER(fts:text(?title, "user*"))
}
LIMIT 25`],
    ['Titles as statements (CONSTRUCT)', 'A graph built from the web graph, as N-Triples',
     `PREFIX web: <urn:webindex:>
PREFIX dc: <http://purl.org/dc/terms/>
# The page titles as Dublin Core statements, in N-Triples.
CONSTRUCT { ?page dc:title ?title }
WHERE {
  GRAPH <urn:webindex:web> { ?page web:title ?title }
}
LIMIT 25`],
  ];

  //! The answer to `query` from /sparql: {kind: 'table', vars, rows} (SELECT), {kind: 'boolean',
  //! value} (ASK) or {kind: 'graph', text} (CONSTRUCT, DESCRIBE: N-Triples), with `ms`, the time
  //! from the request to the parsed answer. ApiError with the endpoint's message otherwise.
  async function runSparql(query) {
    const started = performance.now();
    let response;
    try {
      response = await fetch('sparql', {method: 'POST', body: query, headers: {
        'Content-Type': 'application/sparql-query',
        Accept: 'application/sparql-results+json, application/n-triples'}});  // the first the query answers
    } catch (e) {
      throw new ApiError(0, `cannot reach the webindex server (${e.message})`);
    }
    const text = await response.text();
    if (!response.ok) {
      let message = response.statusText;
      try {
        const body = JSON.parse(text);
        if (typeof body.error === 'string') message = body.error;
      } catch (e) {
        // not JSON: the status line's text
      }
      throw new ApiError(response.status, message || 'request failed');
    }
    const type = (response.headers.get('Content-Type') || '').split(';')[0].trim().toLowerCase();
    const ms = () => performance.now() - started;
    if (type === 'application/n-triples') return {kind: 'graph', text, ms: ms()};
    let body;
    try {
      body = JSON.parse(text);
    } catch (e) {
      throw new ApiError(response.status, 'the server did not answer SPARQL results in JSON');
    }
    if (typeof body.boolean === 'boolean') return {kind: 'boolean', value: body.boolean, ms: ms()};
    return {kind: 'table', vars: body.head.vars || [], rows: body.results.bindings, ms: ms()};
  }

  //! The http(s) IRIs of `rows` (the first kPageCheckLimit) that are pages of the index: crawled,
  //! or linked to, in the web graph. Empty when the table does not keep the web graph.
  async function knownPages(rows) {
    const iris = new Set();
    for (const row of rows) {
      for (const term of Object.values(row)) {
        if (term.type === 'uri' && /^https?:\/\//i.test(term.value) && kLinkableIri.test(term.value)) iris.add(term.value);
      }
      if (iris.size >= kPageCheckLimit) break;
    }
    if (!iris.size) return iris;
    const values = [...iris].slice(0, kPageCheckLimit).map((iri) => `<${iri}>`).join(' ');
    try {
      const answer = await runSparql(`SELECT DISTINCT ?iri WHERE { VALUES ?iri { ${values} } GRAPH ${kWebGraph} ` +
                                     '{ { ?iri <urn:webindex:crawled> ?t } UNION { ?from <urn:webindex:linksTo> ?iri } } }');
      return new Set(answer.rows.map((row) => row.iri && row.iri.value));
    } catch (e) {
      return new Set();  // page links are a help: the answer shows without them
    }
  }

  //! A datatype IRI as people write it: xsd:integer for XML Schema's, else the whole IRI.
  const shortType = (iri) => (iri.startsWith(kXsd) ? `xsd:${iri.slice(kXsd.length)}` : iri);

  //! One value of a SPARQL JSON result: an IRI links to the statements about it (and, for a page
  //! of the index, to its page view), a literal is its text with its language or datatype after it,
  //! a blank node is _:label; an unbound variable is an empty cell.
  function sparqlTerm(term, pages) {
    if (!term) return null;
    if (term.type === 'uri') {
      if (!kLinkableIri.test(term.value)) return el('span', {class: 'iri'}, breakable(term.value));
      const iri = term.value;
      const link = el('a', {class: 'iri', href: hashFor('statements', {s: `<${iri}>`, graph: 'all'}),
                            title: `Statements about ${iri}`}, breakable(iri));
      if (!pages.has(iri)) return link;
      return [link, ' ', el('a', {class: 'page-link external', href: pageHash(iri), title: `The page ${iri}`}, 'page')];
    }
    if (term.type === 'bnode') return el('span', {class: 'bnode'}, `_:${term.value}`);
    const lang = term['xml:lang'];
    const type = term.datatype && term.datatype !== `${kXsd}string` ? term.datatype : '';
    return el('span', {class: 'literal'},
      term.value === '' ? el('span', {class: 'none'}, 'empty string') : term.value,
      lang ? el('span', {class: 'term-tag', title: 'language tag'}, `@${lang}`) : null,
      type ? el('span', {class: 'term-tag', title: type}, `^^${shortType(type)}`) : null);
  }

  function sparqlRows(vars, rows, pages) {
    return rows.map((row) => el('tr', {}, vars.map((v) => el('td', {}, sparqlTerm(row[v], pages)))));
  }

  //! A SELECT answer: a column per variable, the first kShownRows rows and a button for the rest.
  function sparqlTable(vars, rows, pages) {
    if (!rows.length) return el('p', {class: 'empty'}, 'No solutions: nothing in the store matches this query.');
    const body = el('tbody', {}, sparqlRows(vars, rows.slice(0, kShownRows), pages));
    const table = el('table', {class: 'list sparql', id: 'sparql-table'},
      el('thead', {}, el('tr', {}, vars.map((v) => el('th', {scope: 'col'}, `?${v}`)))), body);
    if (rows.length <= kShownRows) return table;
    const more = el('p', {class: 'lead note'}, `The first ${fmt(kShownRows)} rows are shown. `,
      el('button', {type: 'button', class: 'more', onclick: () => {
        body.append(...sparqlRows(vars, rows.slice(kShownRows), pages));
        more.remove();
      }}, `Show all ${plural(rows.length, 'row', 'rows')}`));
    return [table, more];
  }

  const duration = (ms) => (ms < 1000 ? `${kNumber.format(Math.max(1, Math.round(ms)))} ms`
    : `${kNumber.format(Math.round(ms / 10) / 100)} s`);

  //! The answer under the form, with how much it holds and how long it took.
  async function sparqlAnswer(answer) {
    const took = duration(answer.ms);
    const summary = (what) => el('p', {class: 'lead', id: 'sparql-summary'}, `${what} in ${took}.`);
    if (answer.kind === 'boolean') {
      return [el('h2', {}, 'Answer'), summary('Answered'),
        el('p', {class: `boolean ${answer.value}`, id: 'sparql-boolean'}, String(answer.value))];
    }
    if (answer.kind === 'graph') {
      const n = answer.text.split('\n').filter((line) => line.trim() && !line.startsWith('#')).length;
      return [el('h2', {}, 'Statements'), summary(plural(n, 'statement', 'statements')),
        n ? el('pre', {class: 'ntriples', id: 'sparql-graph'}, answer.text)
          : el('p', {class: 'empty'}, 'No statements: nothing in the store matches this query.')];
    }
    const pages = await knownPages(answer.rows);
    return [el('h2', {}, 'Solutions'), summary(plural(answer.rows.length, 'row', 'rows')),
      ...[sparqlTable(answer.vars, answer.rows, pages)].flat()];
  }

  //! The line `line` of `query` with the character at `column` (1-based, in code points) marked
  //! and a caret under it.
  function syntaxExcerpt(query, line, column) {
    const text = query.split('\n')[line - 1];
    if (text === undefined) return null;
    const chars = Array.from(text);
    const at = Math.min(Math.max(column - 1, 0), chars.length);
    const gutter = `${line} \u2502 `;
    const indent = chars.slice(0, at).map((c) => (c === '\t' ? '\t' : ' ')).join('');
    return el('pre', {class: 'excerpt', id: 'sparql-excerpt'},
      el('span', {class: 'gutter'}, gutter), chars.slice(0, at).join(''),
      el('mark', {}, at < chars.length ? chars[at] : ' '), chars.slice(at + 1).join(''), '\n',
      el('span', {class: 'caret'}, `${' '.repeat(gutter.length)}${indent}^`));
  }

  //! The offset in `query` (UTF-16, as a textarea counts) of line `line`, column `column`.
  function offsetOf(query, line, column) {
    const lines = query.split('\n');
    let offset = 0;
    for (let i = 0; i < line - 1 && i < lines.length; ++i) offset += lines[i].length + 1;
    const text = lines[line - 1] || '';
    return offset + Array.from(text).slice(0, Math.max(column - 1, 0)).join('').length;
  }

  const kSparqlTitles = {0: 'The server cannot be reached', 400: 'The query was refused',
                         409: 'This table does not keep an index the query needs', 503: 'The query did not finish'};

  //! A failed query in the user's words; a syntax error points at its line and column, in the
  //! message and in the query (`textarea`: its cursor is moved there).
  function sparqlError(error, query, textarea) {
    const syntax = /^SPARQL syntax: line (\d+), column (\d+): ([\s\S]*)$/.exec(error.message);
    if (!syntax) {
      return el('div', {class: 'error', role: 'alert', id: 'sparql-error'},
        el('strong', {}, kSparqlTitles[error.status] || `Error (${error.status})`), ': ', error.message);
    }
    const [, line, column, what] = syntax;
    setTimeout(() => {
      if (!textarea.isConnected) return;
      const at = offsetOf(query, Number(line), Number(column));
      textarea.focus();
      textarea.setSelectionRange(at, at + 1);
    }, 0);
    return el('div', {class: 'error', role: 'alert', id: 'sparql-error'},
      el('strong', {}, `Syntax error on line ${line}, column ${column}`), ': ', what,
      syntaxExcerpt(query, Number(line), Number(column)));
  }

  //! The query form: the text, Run (or Ctrl+Enter), and the examples that fill it in one click.
  function sparqlForm(query) {
    const textarea = el('textarea', {name: 'query', id: 'sparql-query', rows: 10, spellcheck: 'false',
                                     autocomplete: 'off', 'aria-label': 'SPARQL query'});
    textarea.value = query;
    const form = el('form', {class: 'sparql-form', id: 'sparql'}, textarea,
      el('div', {class: 'sparql-actions'}, el('button', {type: 'submit'}, 'Run'),
        el('span', {class: 'hint'}, 'or Ctrl+Enter')));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const target = hashFor('sparql', {query: textarea.value.trim() ? textarea.value : ''});
      if (target === location.hash) render();
      else location.hash = target;
    });
    textarea.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
    const examples = el('div', {class: 'examples', role: 'group', 'aria-label': 'Example queries'},
      el('span', {}, 'Examples:'), kSparqlExamples.map(([label, title, text], i) => el('button', {
        type: 'button', class: 'example', 'data-example': i, title, onclick: () => {
          textarea.value = text;
          textarea.focus();
        }}, label)));
    return {form: [examples, form], textarea};
  }

  //! #/sparql?query=Q: the form, and when Q is given, its answer.
  async function showSparql(params, next, isCurrent) {
    const query = params.get('query') || '';
    const {form, textarea} = sparqlForm(query || kSparqlExamples[0][2]);
    let answer = null;
    if (query.trim()) {
      try {
        answer = await sparqlAnswer(await runSparql(query));
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        answer = sparqlError(e, query, textarea);
      }
    }
    if (!isCurrent()) return null;
    document.title = 'SPARQL \u2014 webindex';
    return [
      el('section', {class: 'card'}, el('h1', {}, 'SPARQL'),
        el('p', {class: 'lead'}, 'SPARQL 1.1 queries over the graph store (the ', el('code', {}, '/sparql'),
          ' endpoint): the statements loaded into the default graph and named graphs, and, when the table keeps ',
          'it, the web graph ', el('code', {}, kWebGraph), ' with its pages\u2019 ', el('code', {}, 'urn:webindex:'),
          'linksTo, title, server, crawled and anchorText. Rya\u2019s ', el('code', {}, 'tempo:'), ' and ',
          el('code', {}, 'fts:text'), ' filters read the temporal and free-text indexes. Every IRI below lists ',
          'the statements about it; a page of the index also opens its page view.'),
        form),
      answer ? el('section', {class: 'card', id: 'sparql-result'}, answer) : null,
    ].filter(Boolean);
  }

  // ---- Rendering ----

  const kViews = {top: showTop, pagerank: showPageRank, pages: showPages, page: showPage, search: showSearch,
                  status: showStatus, statements: showStatements, temporal: showTemporal, text: showText,
                  sparql: showSparql};
  let statusTimer = null;
  let renderSeq = 0;

  function setState(state) {
    document.body.dataset.state = state;
    view.setAttribute('aria-busy', state === 'loading' ? 'true' : 'false');
  }

  //! Shows the view the hash names. `quiet`: a refresh of the same view (no loading state, no scrolling).
  async function render(quiet) {
    const seq = ++renderSeq;
    const isCurrent = () => seq === renderSeq;
    const next = pendingNext;
    pendingNext = null;
    clearTimeout(statusTimer);
    const {name, params} = parseHash();
    if (!name) {
      history.replaceState(null, '', '#/top');
      return render();
    }
    view.dataset.view = name;
    if (['top', 'status', 'statements', 'temporal', 'text', 'sparql'].includes(name)) searchInput.value = '';
    if (quiet !== true) setState('loading');
    const show = kViews[name];
    try {
      if (!show) throw new ApiError(404, `no view '${name}': try Top pages or the search box`);
      const content = await show(params, next, isCurrent);
      if (!isCurrent()) return;
      view.replaceChildren(...[content].flat());
      setState('ready');
      if (name === 'status') statusTimer = setTimeout(() => { if (isCurrent()) render(true); }, kStatusRefreshMs);
    } catch (e) {
      if (!isCurrent()) return;
      document.title = 'Error \u2014 webindex';
      view.replaceChildren(el('section', {class: 'card'}, errorBox(e),
        el('p', {}, el('a', {href: '#/top'}, 'Back to the top pages'))));
      setState('error');
    }
    if (isCurrent() && quiet !== true) window.scrollTo(0, 0);
  }

  searchForm.addEventListener('submit', (event) => {
    event.preventDefault();
    cancelSuggestions();
    const target = searchHash(searchInput.value);
    if (target === location.hash) render();
    else location.hash = target;
  });
  window.addEventListener('hashchange', () => render());
  view.replaceChildren(el('p', {class: 'loading'}, 'Loading\u2026'));
  render();
})();
