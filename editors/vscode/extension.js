// The Rulebook extension: starts `rulebook lsp` over stdio for .rules and .scenarios files.
// Plain JavaScript with no build step; highlighting comes from syntaxes/rules.tmLanguage.json
// and works even when the language server cannot start.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

/** @type {LanguageClient | undefined} */
let client;

function serverCommand() {
  const configured = vscode.workspace.getConfiguration("rulebook").get("path");
  return typeof configured === "string" && configured.trim() !== "" ? configured.trim() : "rulebook";
}

async function startClient() {
  const command = serverCommand();
  const serverOptions = { command, args: ["lsp"] };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "rules" },
      { scheme: "untitled", language: "rules" },
    ],
  };
  client = new LanguageClient("rulebook", "Rulebook", serverOptions, clientOptions);
  try {
    await client.start();
  } catch (err) {
    client = undefined;
    const message = err && err.message ? err.message : String(err);
    vscode.window.showErrorMessage(
      `Rulebook: could not start \`${command} lsp\` (${message}). ` +
        "Install the binary with `cargo install --path .` in the rulebook repository, " +
        "or set `rulebook.path` to its full path.",
    );
  }
}

async function stopClient() {
  if (client) {
    const running = client;
    client = undefined;
    await running.stop();
  }
}

async function restartClient() {
  await stopClient();
  await startClient();
}

/** @param {vscode.ExtensionContext} context */
async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand("rulebook.restartServer", restartClient),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("rulebook.path")) {
        restartClient();
      }
    }),
  );
  await startClient();
}

function deactivate() {
  return stopClient();
}

module.exports = { activate, deactivate };
