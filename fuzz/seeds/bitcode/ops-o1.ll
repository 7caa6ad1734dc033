source_filename = "ops.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
%struct.s = type { i8, i64, double }
@g = dso_local local_unnamed_addr global %struct.s { i8 1, i64 2, double 3.000000e+00 }, align 8
@.str = private unnamed_addr constant [3 x i8] c"hi\00", align 1
@msg = dso_local local_unnamed_addr global i8* getelementptr inbounds ([3 x i8], [3 x i8]* @.str, i64 0, i64 0), align 8
@__const.ops.v = private unnamed_addr constant [4 x i8] c"\01\02\03\04", align 1
define dso_local i64 @ops(i64 noundef %0, i32 noundef %1, double noundef %2, %struct.s* nocapture noundef readonly %3) local_unnamed_addr {
  %5 = and i32 %1, 7
  %6 = zext i32 %5 to i64
  %7 = shl i64 %0, %6
  %8 = ashr i64 %0, 3
  %9 = xor i64 %7, %8
  %10 = fmul double %2, 2.500000e+00
  %11 = fptosi double %10 to i64
  %12 = xor i64 %9, %11
  %13 = getelementptr inbounds %struct.s, %struct.s* %3, i64 0, i32 0
  %14 = load i8, i8* %13, align 8
  %15 = sext i8 %14 to i64
  br label %28
16:                                               ; preds = %28
  %17 = getelementptr inbounds %struct.s, %struct.s* %3, i64 0, i32 2
  %18 = load double, double* %17, align 8
  %19 = fptrunc double %18 to float
  %20 = fptosi float %19 to i64
  %21 = srem i64 %0, 5
  %22 = udiv i32 %1, 3
  %23 = zext i32 %22 to i64
  %24 = sub nsw i64 %21, %23
  %25 = add i64 %24, %35
  %26 = add i64 %25, %20
  %27 = icmp sgt i64 %26, 0
  br i1 %27, label %44, label %38
28:                                               ; preds = %4, %28
  %29 = phi i64 [ 0, %4 ], [ %36, %28 ]
  %30 = phi i64 [ %12, %4 ], [ %35, %28 ]
  %31 = getelementptr inbounds [4 x i8], [4 x i8]* @__const.ops.v, i64 0, i64 %29
  %32 = load i8, i8* %31, align 1
  %33 = zext i8 %32 to i64
  %34 = mul nsw i64 %15, %33
  %35 = add nsw i64 %34, %30
  %36 = add nuw nsw i64 %29, 1
  %37 = icmp eq i64 %36, 4
  br i1 %37, label %16, label %28
38:                                               ; preds = %16
  %39 = load i8*, i8** @msg, align 8
  %40 = load i8, i8* %39, align 1
  %41 = icmp eq i8 %40, 104
  %42 = zext i1 %41 to i64
  %43 = sub i64 %42, %26
  br label %44
44:                                               ; preds = %16, %38
  %45 = phi i64 [ %43, %38 ], [ %26, %16 ]
  ret i64 %45
}
