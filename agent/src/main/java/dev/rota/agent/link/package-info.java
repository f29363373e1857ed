/**
 * The agent's link to the controller: registration and heartbeats, the reports of its tasks'
 * changes, and the fence that stops its tasks when no controller host has answered for too long.
 */
package dev.rota.agent.link;
