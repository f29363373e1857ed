package dev.rota.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DevAgentsShareTest {
  @ParameterizedTest(name = "{0} cores, {1} MiB, {2} agents: {3}")
  @CsvSource(
      delimiter = '|',
      value = {
        "8  | 32768 | 2 | cpu=4,memory=16384",
        "2  | 24000 | 2 | cpu=1,memory=12000",
        "2  | 24000 | 3 | cpu=1,memory=8000",
        "16 | 65536 | 1 | cpu=16,memory=65536",
        "4  | 8192  | 0 | cpu=4,memory=8192"
      })
  void eachDevAgentOffersItsShareOfTheMachineAndACoreAtLeast(
      int cores, long memoryMib, int agents, String offered) {
    assertEquals(offered, DevAgents.shareOfTheMachine(cores, memoryMib, agents));
  }
}
