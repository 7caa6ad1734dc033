define i32 @main() {
entry:
  %a = add i32 1, 2
  %c = icmp eq i32 %a, 3
  br i1 %c, label %t, label %f
t:
  ret i32 0
f:
  ret i32 1
}
