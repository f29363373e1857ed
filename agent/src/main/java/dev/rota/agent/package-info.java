/**
 * The agent as a whole: its entry point ({@link dev.rota.agent.AgentMain}) and the one place that
 * builds its parts and starts them in order ({@link dev.rota.agent.Agent}). Every other package of
 * the agent is one of those parts; none of them reaches back here.
 */
package dev.rota.agent;
