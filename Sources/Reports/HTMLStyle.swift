/// The page's inline style sheet. System fonts only; no `url(...)`, no `@import`; no `<`
/// or `&`, so the page stays well-formed XML. Table cells may break anywhere (`overflow-wrap:
/// anywhere`, which also lowers a column's minimum width), so that a table of long addresses
/// and ids fits a 1280 px window instead of scrolling; numbers never break.
enum HTMLStyle {
    static let css = """
        :root { --error: #c62828; --warning: #a15c00; --info: #1565c0; --ok: #2e7d32; --ink: #1f2328;
          --muted: #5f6b76; --line: #d8dee4; --band: #eef1f4; }
        * { box-sizing: border-box; }
        body { margin: 0; background: #f6f8fa; color: var(--ink);
          font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
        main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 40px; background: #fff;
          min-height: 100vh; }
        h1 { font-size: 26px; margin: 0 0 4px; }
        h2 { font-size: 20px; margin: 32px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
        h3 { font-size: 16px; margin: 18px 0 8px; }
        h3.error { color: var(--error); } h3.warning { color: var(--warning); } h3.info { color: var(--info); }
        h4 { font-size: 15px; margin: 0 0 6px; }
        p { margin: 6px 0; }
        .lead { color: var(--muted); margin: 0 0 10px; }
        .counts { font-weight: 600; }
        code { font: 12.5px ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace;
          background: #f0f2f4; padding: 1px 4px; border-radius: 4px; }
        .file { font-family: ui-monospace, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12.5px;
          overflow-wrap: anywhere; }
        .none { color: var(--muted); font-style: italic; }
        .bad { color: var(--error); font-weight: 600; }
        .sub { color: var(--muted); font-size: 11.5px; overflow-wrap: anywhere; }
        .clock { white-space: nowrap; overflow-wrap: normal; }
        .rel { white-space: nowrap; font-variant-numeric: tabular-nums; }
        nav { margin: 14px 0 0; display: flex; gap: 14px; flex-wrap: wrap; font-size: 13px; }
        nav a { color: var(--info); text-decoration: none; }
        .verdict { margin: 16px 0 0; padding: 14px 18px; border-radius: 8px; border-left: 8px solid; }
        .verdict .headline { font-size: 21px; font-weight: 700; margin: 0; }
        .verdict .tally { margin: 4px 0 0; color: var(--muted); }
        .verdict.error { background: #fdecea; border-color: var(--error); }
        .verdict.error .headline { color: var(--error); }
        .verdict.warning { background: #fff4e0; border-color: #e09100; }
        .verdict.warning .headline { color: var(--warning); }
        .verdict.ok { background: #e9f5ea; border-color: var(--ok); }
        .verdict.ok .headline { color: var(--ok); }
        .finding { border: 1px solid var(--line); border-left: 5px solid; border-radius: 6px; padding: 10px 14px;
          margin: 0 0 10px; overflow-wrap: anywhere; }
        .finding.error { border-left-color: var(--error); }
        .finding.warning { border-left-color: #e09100; }
        .finding.info { border-left-color: var(--info); }
        .finding .advice { background: #f6f8fa; padding: 6px 10px; border-radius: 4px; }
        .finding dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0 0;
          font-size: 13px; }
        .finding dt { color: var(--muted); }
        .finding dd { margin: 0; }
        .finding .frames + .frames { margin-top: 2px; }
        .badge { display: inline-block; font-size: 11px; font-weight: 700; text-transform: uppercase;
          letter-spacing: .04em; color: #fff; padding: 1px 7px; border-radius: 10px; vertical-align: 2px; }
        .badge.error { background: var(--error); } .badge.warning { background: #c77700; }
        .badge.info { background: var(--info); }
        .scroll { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; font-size: 13px; margin: 6px 0; }
        th, td { text-align: left; vertical-align: top; padding: 5px 8px; border-bottom: 1px solid var(--line);
          unicode-bidi: isolate; }
        td { overflow-wrap: anywhere; }
        th { background: #f0f2f4; font-weight: 600; }
        td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; overflow-wrap: normal;
          white-space: nowrap; }
        td .name { font-weight: 600; }
        tbody tr:nth-child(even) td { background: #fafbfc; }
        caption { text-align: left; color: var(--muted); padding: 4px 0; }
        figure { margin: 10px 0 22px; }
        figcaption { font-weight: 600; margin: 0 0 4px; }
        figcaption .sub { font-weight: 400; display: inline; margin-left: 8px; }
        svg { display: block; max-width: 100%; height: auto; }
        svg text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; font-size: 11px;
          fill: var(--ink); }
        svg .axis text, svg text.muted { fill: var(--muted); }
        svg .label { font-size: 12px; }
        svg .delay { font-size: 9.5px; fill: #1b5e20; }
        svg .note { font-size: 11px; fill: var(--muted); font-style: italic; }
        .explain { color: var(--muted); font-size: 13px; max-width: 900px; }
        footer { margin-top: 36px; padding-top: 10px; border-top: 1px solid var(--line); color: var(--muted);
          font-size: 12px; }

        """
}
