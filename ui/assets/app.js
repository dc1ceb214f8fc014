// Accessible names for Chainlit's icon-only buttons, and a skip link to the message box.
// Chainlit renders these buttons without text; a MutationObserver names them as they appear.
(function () {
  const NAMES = [
    ["#chat-submit", "Send message"],
    ["#stop-button", "Stop"],
    ["#upload-button", "Attach files"],
    ["#new-chat-button", "New chat"],
    ["#sidebar-trigger-button", "Toggle the thread list"],
    ["#theme-toggle", "Switch light or dark theme"],
    ["#search-chats-button", "Search threads"],
    [".positive-feedback-off, .positive-feedback-on", "Helpful"],
    [".negative-feedback-off, .negative-feedback-on", "Not helpful"],
  ];
  function nameButtons(root) {
    for (const [selector, name] of NAMES) {
      root.querySelectorAll(selector).forEach((el) => {
        const button = el.closest("button") || el;
        if (!button.getAttribute("aria-label")) button.setAttribute("aria-label", name);
      });
    }
    root.querySelectorAll("button:not([aria-label])").forEach((b) => {
      if (b.textContent.trim() || b.getAttribute("title")) return;
      const svg = b.querySelector("svg");
      const cls = svg ? String(svg.getAttribute("class") || "") : "";
      const known = [["copy", "Copy"], ["check", "Copied"], ["thumbs-up", "Helpful"], ["thumbs-down", "Not helpful"],
        ["x", "Close"], ["eye-off", "Hide password"], ["eye", "Show password"], ["paperclip", "Attach files"], ["square-pen", "New chat"], ["panel-left", "Toggle the thread list"],
        ["search", "Search threads"], ["ellipsis", "More actions"], ["chevron", "Expand or collapse"],
        ["pencil", "Edit"], ["trash", "Delete"], ["settings", "Settings"], ["sun", "Switch theme"], ["moon", "Switch theme"]];
      for (const [part, name] of known) {
        if (cls.includes("lucide-" + part)) { b.setAttribute("aria-label", name); return; }
      }
      b.setAttribute("aria-label", b.id ? b.id.replace(/[-_]/g, " ") : "Button");
    });
  }
  function skipLink() {
    if (document.getElementById("godot-rag-skip")) return;
    const a = document.createElement("a");
    a.id = "godot-rag-skip";
    a.href = "#chat-input";
    a.textContent = "Skip to the message box";
    a.addEventListener("click", (e) => {
      const input = document.getElementById("chat-input");
      if (input) { e.preventDefault(); input.focus(); }
    });
    document.body.prepend(a);
  }
  // A task row ("player.gd L12-L26 · done") opens its chunk's trace: unfold the trace containers
  // (run, file, neutral group) until the chunk's step shows, then open it and scroll to it.
  function openTrace(label) {
    let tries = 0;
    const find = () => [...document.querySelectorAll("button[id^='step-#']")].reverse()
      .find((b) => b.id.includes(" " + label + " ·") || b.id.endsWith(" " + label));
    const step = () => {
      const b = find();
      if (b) {
        if (b.getAttribute("aria-expanded") !== "true") b.click();
        setTimeout(() => b.scrollIntoView({ block: "start", behavior: "smooth" }), 200);
        return;
      }
      const closed = [...document.querySelectorAll("button[id^='step-'][aria-expanded='false']")]
        .filter((x) => !x.id.startsWith("step-#"));
      closed.forEach((x) => x.click());
      if (++tries < 4 && closed.length) setTimeout(step, 200);
    };
    step();
  }
  // The per-file table's chunk links (#trace:<path>) unfold that file's traces.
  function openFile(path) {
    let tries = 0;
    const step = () => {
      const b = [...document.querySelectorAll("button[id^='step-']")].reverse().find((x) => x.id === "step-" + path);
      if (b) {
        if (b.getAttribute("aria-expanded") !== "true") b.click();
        setTimeout(() => b.scrollIntoView({ block: "start", behavior: "smooth" }), 200);
        return;
      }
      const roots = [...document.querySelectorAll("button[id='step-Per-chunk trace'][aria-expanded='false']")];
      roots.forEach((x) => x.click());
      if (++tries < 4) setTimeout(step, 200);
    };
    step();
  }
  document.addEventListener("click", (e) => {
    const link = e.target.closest && e.target.closest("a[href^='#trace:']");
    if (link) {
      e.preventDefault();
      e.stopPropagation();
      openFile(decodeURIComponent(link.getAttribute("href").slice("#trace:".length)));
      return;
    }
    const task = e.target.closest && e.target.closest(".task");
    if (task) openTrace(task.innerText.split(" · ")[0].trim());
  }, true);

  // A refused login already says so in the form; Chainlit's toast repeats it as "Unauthorized: credentialssignin".
  function dropRawToasts() {
    document.querySelectorAll("[data-sonner-toast]").forEach((t) => {
      if (/credentialssignin/i.test(t.textContent)) t.remove();
    });
  }

  // Chainlit's thread-list group labels ("Today") are #77777c on #fafafa (4.2:1); darken them to AA.
  function darkenFaintLabels() {
    document.querySelectorAll(".px-2 > span:not([data-godot-rag-checked])").forEach((s) => {
      s.setAttribute("data-godot-rag-checked", "");
      const st = getComputedStyle(s);
      const faint = st.color === "rgb(119, 119, 124)" || /rgba|\/ 0?\.\d/.test(st.color) || Number(st.opacity) < 1
        || Number(getComputedStyle(s.parentElement).opacity) < 1;
      if (faint && !s.closest("button, a")) {
        s.style.color = "#55555c";
        s.style.opacity = "1";
        s.parentElement.style.opacity = "1";
      }
    });
  }

  // The changes table (ui/render.py's migration_markdown) is Markdown, which carries no class: it is
  // known by its "Godot 3" and "Godot 4" header cells. Tagged, style.css lays it out side by side on
  // a desktop and as one stacked card per item on a phone, where each cell shows its column's name.
  function markChangesTables() {
    document.querySelectorAll(".markdown-body table:not(.godot-rag-changes), .prose table:not(.godot-rag-changes)")
      .forEach((table) => {
        const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
        if (!heads.includes("Godot 3") || !heads.includes("Godot 4")) return;
        table.classList.add("godot-rag-changes");
        table.querySelectorAll("tbody tr").forEach((tr) => {
          [...tr.children].forEach((td, i) => { if (heads[i]) td.setAttribute("data-label", heads[i]); });
        });
      });
  }

  function run() { skipLink(); nameButtons(document); dropRawToasts(); darkenFaintLabels(); markChangesTables(); }
  let pending = false;
  function schedule() {  // at most every 300 ms, however fast a long run re-renders its rows
    if (pending) return;
    pending = true;
    setTimeout(() => { pending = false; run(); }, 300);
  }
  // Buttons are named as soon as they are added (a screen reader may reach them at once);
  // the heavier passes follow, throttled.
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) if (n.nodeType === 1) nameButtons(n.parentElement || n);
    }
    schedule();
  }).observe(document.documentElement, { childList: true, subtree: true });
  if (document.readyState !== "loading") run(); else document.addEventListener("DOMContentLoaded", run);
})();
