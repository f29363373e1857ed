/**
 * The agent's HTTP server: the task API the controller calls, consoles and port tunnels into tasks,
 * and its TLS certificate.
 */
package dev.rota.agent.server;
