/**
 * The agent's settings, read once from its environment and checked, each bad one named in the
 * agent's one-line refusal to start.
 */
package dev.rota.agent.config;
