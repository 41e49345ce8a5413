// RUN: %raptor-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{domain has 1 dims and 0 symbols, but the system has 2 indices and 0 parameters}}
sure.system @rank indices ["i", "j"] parameters [] domain affine_set<(i) : (i >= 0)> {
}

// -----

// expected-error @+1 {{name 'i' is used twice among indices and parameters}}
sure.system @names indices ["i"] parameters ["i"] domain affine_set<(i)[n] : (i >= 0)> {
}

// -----

// expected-error @+1 {{has 2 parameter values for 1 parameters}}
sure.system @values indices ["i"] parameters ["N"] values [1, 2] domain affine_set<(i)[n] : (i >= 0)> {
}

// -----

sure.system @tap_rank indices ["i", "j"] parameters [] domain affine_set<(i, j) : (i >= 0)> {
  sure.equation "a" {
    // expected-error @+1 {{reads 'a' with 1 subscripts, but the system has rank 2}}
    %0 = sure.tap "a" at affine_map<(i, j) -> (i)>
    sure.yield %0
  }
}

// -----

sure.system @tap_affine indices ["i"] parameters [] domain affine_set<(i) : (i >= 0)> {
  sure.equation "a" {
    // expected-error @+1 {{subscript d0 floordiv 2 is not affine}}
    %0 = sure.tap "a" at affine_map<(i) -> (i floordiv 2)>
    sure.yield %0
  }
}

// -----

sure.system @unknown indices ["i"] parameters [] domain affine_set<(i) : (i >= 0)> {
  sure.equation "a" {
    // expected-error @+1 {{reads unknown variable 'b'}}
    %0 = sure.tap "b" at affine_map<(i) -> (i - 1)>
    sure.yield %0
  }
}

// -----

sure.system @twice indices ["i"] parameters [] domain affine_set<(i) : (i >= 0)> {
  sure.equation "a" {
    %0 = sure.constant 1.0
    sure.yield %0
  }
  // expected-error @+1 {{variable 'a' is defined more than once on the same points}}
  sure.equation "a" {
    %0 = sure.constant 2.0
    sure.yield %0
  }
}

// -----

sure.system @apply indices ["i"] parameters [] domain affine_set<(i) : (i >= 0)> {
  sure.equation "a" {
    %0 = sure.constant 1.0
    // expected-error @+1 {{'sqrt' takes 1 operands, got 2}}
    %1 = sure.apply "sqrt"(%0, %0)
    sure.yield %1
  }
}

// -----

sure.system @function indices ["i"] parameters [] domain affine_set<(i) : (i >= 0)> {
  sure.equation "a" {
    %0 = sure.constant 1.0
    // expected-error @+1 {{unknown function 'log'}}
    %1 = sure.apply "log"(%0)
    sure.yield %1
  }
}

// -----

// A face's shape maps the parameters only: one with an index dimension is
// refused even when its symbols are right (make mutate's survivor).
sure.system @face_shape_dims indices ["i", "j"] parameters ["N"] domain affine_set<(i, j)[N] : (i >= 0, N - i - 1 >= 0, j >= 0, N - j - 1 >= 0)> {
  sure.equation "c" {
    %0 = sure.tap "c" at affine_map<(i, j)[N] -> (i, j - 1)>
    sure.yield %0
  }
  // expected-error @+1 {{shape must be a map of the 1 parameters only}}
  sure.input "C0" shape affine_map<(d0)[N] -> (N)> on affine_set<(i, j)[N] : (i >= 0, N - i - 1 >= 0, j + 1 == 0)> variable "c" at affine_map<(i, j)[N] -> (i)>
}

// -----

sure.system @face_shape_symbols indices ["i", "j"] parameters ["N"] domain affine_set<(i, j)[N] : (i >= 0, N - i - 1 >= 0, j >= 0, N - j - 1 >= 0)> {
  sure.equation "c" {
    %0 = sure.tap "c" at affine_map<(i, j)[N] -> (i, j - 1)>
    sure.yield %0
  }
  // expected-error @+1 {{shape must be a map of the 1 parameters only}}
  sure.input "C0" shape affine_map<()[N, M] -> (N)> on affine_set<(i, j)[N] : (i >= 0, N - i - 1 >= 0, j + 1 == 0)> variable "c" at affine_map<(i, j)[N] -> (i)>
}

// -----

// The neighbour both are derived from is accepted.
sure.system @face_shape_ok indices ["i", "j"] parameters ["N"] domain affine_set<(i, j)[N] : (i >= 0, N - i - 1 >= 0, j >= 0, N - j - 1 >= 0)> {
  sure.equation "c" {
    %0 = sure.tap "c" at affine_map<(i, j)[N] -> (i, j - 1)>
    sure.yield %0
  }
  sure.input "C0" shape affine_map<()[N] -> (N)> on affine_set<(i, j)[N] : (i >= 0, N - i - 1 >= 0, j + 1 == 0)> variable "c" at affine_map<(i, j)[N] -> (i)>
}
