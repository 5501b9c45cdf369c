// The Copy buttons of a paper's cite panel (templates/papers/includes/cite_panel.html).
// Without this script the buttons stay hidden and the citations are text to select.
// A button copies the text of the element its data-copy names with the Clipboard API;
// where that is missing or refused (an insecure origin, a denied permission), it selects
// the text instead, for the reader's own Copy command. Either way the button says so
// for a moment and the panel's live region announces it to screen readers. The labels
// are the panel's data- attributes, in the page's language.

const SHOWN_MS = 2000;

function select(element) {
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}

async function copy(text) {
  if (!navigator.clipboard || !window.isSecureContext) {
    return false;
  }
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

function setUp(panel) {
  const status = panel.querySelector("[data-copy-status]");
  const labels = panel.dataset;
  for (const button of panel.querySelectorAll("button[data-copy]")) {
    const source = document.getElementById(button.dataset.copy);
    if (!source) {
      continue;
    }
    let timer;
    button.addEventListener("click", async () => {
      const copied = await copy(source.textContent.trim());
      if (!copied) {
        select(source);
      }
      const message = copied ? labels.copiedLabel : labels.selectedLabel;
      button.textContent = copied ? labels.copiedLabel : labels.copyLabel;
      button.classList.toggle("is-copied", copied);
      // Emptied first, so that the same message twice is announced twice.
      status.textContent = "";
      window.setTimeout(() => {
        status.textContent = message;
      }, 50);
      window.clearTimeout(timer);
      timer = window.setTimeout(() => {
        button.textContent = labels.copyLabel;
        button.classList.remove("is-copied");
      }, SHOWN_MS);
    });
    button.hidden = false;
  }
}

for (const panel of document.querySelectorAll(".cite-panel")) {
  setUp(panel);
}
