//! Why a case could not be run or judged: tool errors, never findings.

use crate::driver::{DriverError, NoAnswer};
use crate::executor::ExecError;
use crate::target::TargetError;
use std::time::Duration;
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
    /// The server did not answer in time (frozen, unreachable); the case's
    /// connections were dropped.
    #[error(transparent)]
    NoAnswer(NoAnswer),
    /// As `NoAnswer`, and the server did not answer a new connection for
    /// the reconnect timeout either: the run cannot go on.
    #[error("{error}; it did not answer a new connection for {} either", humantime::format_duration(*.waited))]
    ServerSilent { error: NoAnswer, waited: Duration },
    /// The run was asked to stop; the statements in flight were cancelled.
    #[error("the run was interrupted; the case was cut short")]
    Interrupted,
}

impl CaseError {
    /// The same error, with a server that did not answer or a stop lifted
    /// out of the layer that saw it.
    pub(super) fn lifted(self) -> CaseError {
        match self {
            CaseError::Target(TargetError::NoAnswer(e))
            | CaseError::Execute(ExecError::NoAnswer(e)) => CaseError::NoAnswer(e),
            CaseError::Target(TargetError::Driver(DriverError::Handshake { within, .. })) => {
                CaseError::NoAnswer(NoAnswer {
                    what: "the connection handshake".into(),
                    within,
                })
            }
            CaseError::Target(TargetError::Interrupted)
            | CaseError::Execute(ExecError::Interrupted) => CaseError::Interrupted,
            other => other,
        }
    }

    /// The case did not run to its end for a reason outside the case: the
    /// server did not answer, or the run stopped. Its outcome says nothing
    /// about the DBMS, and a reduction cannot go on.
    pub fn cut_off(&self) -> bool {
        matches!(
            self.lifted_ref(),
            Some(CutOff::NoAnswer) | Some(CutOff::Interrupted)
        ) || matches!(self, CaseError::ServerSilent { .. })
    }

    /// The case could not run for a reason outside it: the server went away
    /// or did not answer, the run stopped, a session's task vanished. A case
    /// that failed this way says nothing about whether it shows a finding;
    /// one that failed in its own right (its rendering, a statement its set-up
    /// needs) does not show it.
    pub fn outside_the_case(&self) -> bool {
        self.cut_off()
            || matches!(
                self,
                CaseError::Target(TargetError::Driver(_))
                    | CaseError::Execute(ExecError::SessionGone)
            )
    }

    pub fn is_interrupted(&self) -> bool {
        self.lifted_ref() == Some(CutOff::Interrupted)
    }

    fn lifted_ref(&self) -> Option<CutOff> {
        match self {
            CaseError::NoAnswer(_)
            | CaseError::Target(TargetError::NoAnswer(_))
            | CaseError::Target(TargetError::Driver(DriverError::Handshake { .. }))
            | CaseError::Execute(ExecError::NoAnswer(_)) => Some(CutOff::NoAnswer),
            CaseError::Interrupted
            | CaseError::Target(TargetError::Interrupted)
            | CaseError::Execute(ExecError::Interrupted) => Some(CutOff::Interrupted),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CutOff {
    NoAnswer,
    Interrupted,
}
