//! placeholder until the cosy-abi helper writes this file
