package shared

// OneShotEnv is set to "1" in a plugin's environment when its host serves
// one invocation (`riot call`, `riot run`): the plugin, and any process
// its tools leave running, ends when that invocation exits.
const OneShotEnv = "RIOT_HOST_ONE_SHOT"
