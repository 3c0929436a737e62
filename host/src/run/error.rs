//! Why a case could not be run or judged: tool errors, never findings.

use crate::executor::ExecError;
use crate::target::TargetError;
use txlab_loader::CallError;
use txlab_plugin_api::ir::CaseError as InvalidCase;

/// A case that failed with a tool error. An oracle that fails is not one of
/// these: it costs only its own verdict (see [`super::Evaluated`]).
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error("{0}")]
    Generator(CallError),
    #[error("{generator} made an invalid case: {error}")]
    GeneratedInvalid {
        generator: String,
        error: InvalidCase,
    },
    #[error("the case is invalid: {0}")]
    Invalid(InvalidCase),
    #[error("{oracle}'s prepare made an invalid case: {error}")]
    PreparedInvalid { oracle: String, error: InvalidCase },
    #[error("{0}")]
    Render(CallError),
    #[error(transparent)]
    Target(#[from] TargetError),
    #[error(transparent)]
    Execute(#[from] ExecError),
    #[error("cannot write a finding: {0}")]
    WriteFinding(std::io::Error),
}
