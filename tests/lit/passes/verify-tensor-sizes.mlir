// raptor-opt screens every type of the parsed IR before the pipeline it is
// given (raptor-verify-tensor-sizes): signatures, results and attributes,
// element counts and byte counts at 8 bytes per element, whatever the
// pipeline (pass flags or --pass-pipeline).
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics -o /dev/null
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(canonicalize))' -o /dev/null
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics --raptor-place-codecs -o /dev/null
// RUN: %raptor-opt %s -split-input-file -verify-diagnostics --mlir-print-ir-before-all --canonicalize -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORDER

// ORDER: IR Dump Before VerifyTensorSizes (raptor-verify-tensor-sizes)
// ORDER-NEXT: module
// ORDER: IR Dump Before Canonicalizer (canonicalize)

// 2^60 elements fit int64, their bytes do not.
// expected-error @+1 {{argument 0 of type tensor<1152921504606846976xf32> has more elements than int64 counts}}
func.func @bytes(%a: tensor<1152921504606846976xf32>) -> tensor<1152921504606846976xf32> {
  return %a : tensor<1152921504606846976xf32>
}

// -----

// A type in an attribute only.
// expected-error @+1 {{attribute 'function_type' of type tensor<4x2305843009213693952xf32> has more elements than int64 counts}}
func.func private @declared(tensor<4x2305843009213693952xf32>)

// -----

// Dynamic sizes count nothing; the largest static count that fits passes.
func.func @fits(%a: tensor<?x1152921504606846975xi8>) -> tensor<?x1152921504606846975xi8> {
  return %a : tensor<?x1152921504606846975xi8>
}
