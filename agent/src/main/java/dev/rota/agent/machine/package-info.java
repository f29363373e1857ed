/**
 * What the agent uses of the machine it runs on: files written whole, programs found on the path
 * and helper programs run to their end, the host ports it may hand to tasks.
 */
package dev.rota.agent.machine;
