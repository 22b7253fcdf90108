//! The integration tests: one binary, a module per area, each driving the real `ndjq`
//! binary (assert_cmd) on the data under testdata/. `common` runs the binary hermetically;
//! `support` adds the golden-file helpers of the reading commands.

pub mod common;
pub mod support;

mod agent_modules;
mod cli;
mod conformance;
mod consistency;
mod corpus;
mod dialects;
mod differential;
mod events;
mod filter;
mod filter_predicates;
mod follow;
mod follow_lives;
mod follow_model;
mod gaps;
mod gen;
mod numbers;
mod opencode_store;
mod parallel;
mod properties;
mod readme;
mod recover;
mod regression;
mod reliability;
mod report;
mod resources;
mod run;
mod run_agents;
mod stats;
mod stats_billing;
mod stats_ccusage;
mod stats_lineage;
mod statusline;
mod terminal;
mod validate;
mod walk;
