//! A reviewed example case: any change to the generator's output shows up here.

mod common;

use common::*;
use txlab_generator_random::Config;
use txlab_plugin_api::prelude::*;

#[test]
fn case_for_a_fixed_seed() {
    let features = sqlite_features();
    let mut g = generator(Config::default(), features, &[IsolationLevel::Serializable]);
    let case = g.next_case(CaseRequest::new(42, 0)).unwrap();
    insta::assert_json_snapshot!(case);
}
