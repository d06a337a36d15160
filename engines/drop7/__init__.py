"""Drop7 under the research ruleset: rules, random streams, fast core, replay."""
