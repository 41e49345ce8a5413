// RUN: %raptor-opt %s | %raptor-opt | FileCheck %s

// CHECK-LABEL: sure.system @gemv indices ["i", "j", "k"] parameters ["M", "N"] values [3, 4] domain #{{.*}} tau [1, 1, 1]
// CHECK:       sure.equation "acc" where #{{.*}} {
// CHECK-NEXT:    %[[A:.*]] = sure.tap "acc" at #{{.*}}
// CHECK-NEXT:    %[[B:.*]] = sure.tap "a" at #{{.*}}
// CHECK-NEXT:    %[[C:.*]] = sure.constant 2.0
// CHECK-NEXT:    %[[D:.*]] = sure.apply "*"(%[[B]], %[[C]])
// CHECK-NEXT:    %[[E:.*]] = sure.apply "+"(%[[A]], %[[D]])
// CHECK-NEXT:    sure.yield %[[E]]
sure.system @gemv indices ["i", "j", "k"] parameters ["M", "N"] values [3, 4]
    domain affine_set<(i, j, k)[M, N] : (i >= 0, M - i - 1 >= 0, j >= 0, N - j - 1 >= 0, k == 0)>
    tau [1, 1, 1] {
  sure.equation "a" {
    %0 = sure.tap "a" at affine_map<(i, j, k)[M, N] -> (i, j, k - 1)>
    sure.yield %0
  }
  sure.equation "acc" where affine_set<(i, j, k)[M, N] : (j - 1 >= 0)> {
    %0 = sure.tap "acc" at affine_map<(i, j, k)[M, N] -> (i, j - 1, k)>
    %1 = sure.tap "a" at affine_map<(i, j, k)[M, N] -> (i, j, k)>
    %2 = sure.constant 2.0
    %3 = sure.apply "*"(%1, %2)
    %4 = sure.apply "+"(%0, %3)
    sure.yield %4
  }
}
