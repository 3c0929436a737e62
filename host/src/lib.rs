//! txlab host
